SELECT id, order_number, amount, currency, payment_status, sync_status, payment_transaction_id,
       third_party_guid, created_at, paid_at, synced_at, sync_attempts, last_sync_error
FROM orders
WHERE sync_status = N'Failed'
ORDER BY id
