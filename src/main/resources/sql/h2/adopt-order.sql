-- An order taken over from the shop's table, in the states its row was classed in (docs/adopting.md). Inserts
-- nothing when the order number is Paysync's already (the intake reads a row again after a crash, or a gap's range
-- again) or the transaction id already paid another order: zero rows, for the caller to explain from a read.
INSERT INTO orders (order_number, amount, currency, payment_status, sync_status, payment_transaction_id,
                    third_party_guid, created_at, paid_at, synced_at, sync_attempts)
SELECT CAST(:orderNumber AS VARCHAR(64)), CAST(:amount AS NUMERIC(19, 4)), CAST(:currency AS CHAR(3)),
       CAST(:paymentStatus AS VARCHAR(16)), CAST(:syncStatus AS VARCHAR(16)), CAST(:transactionId AS VARCHAR(128)),
       CAST(:guid AS VARCHAR(128)), CAST(:createdAt AS TIMESTAMP WITH TIME ZONE),
       CAST(:paidAt AS TIMESTAMP WITH TIME ZONE), CAST(:syncedAt AS TIMESTAMP WITH TIME ZONE), 0
WHERE NOT EXISTS (SELECT 1 FROM orders WHERE order_number = :orderNumber)
  AND NOT EXISTS (SELECT 1 FROM orders WHERE payment_transaction_id = :transactionId)
