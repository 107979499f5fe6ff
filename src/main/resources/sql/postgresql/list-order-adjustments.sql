-- An order's adjustments, oldest first.
SELECT id, gateway_id, order_number, kind, amount, currency, reverses, reversed_amount, status, cause, created_at,
       final_at, sync_status, sync_attempts, third_party_guid, last_sync_error, synced_at
FROM adjustments
WHERE order_number = :orderNumber
ORDER BY id
