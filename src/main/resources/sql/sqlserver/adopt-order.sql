-- An order taken over from the shop's table, in the states its row was classed in (docs/adopting.md). Inserts
-- nothing when the order number is Paysync's already (the intake reads a row again after a crash, or a gap's range
-- again) or the transaction id already paid another order: zero rows, for the caller to explain from a read.
-- UPDLOCK, HOLDLOCK: the existence check holds its key range until the insert, as the send key's insert does.
INSERT INTO orders (order_number, amount, currency, payment_status, sync_status, payment_transaction_id,
                    third_party_guid, created_at, paid_at, synced_at, sync_attempts)
SELECT CAST(:orderNumber AS NVARCHAR(64)), CAST(:amount AS NUMERIC(19, 4)), CAST(:currency AS NCHAR(3)),
       CAST(:paymentStatus AS NVARCHAR(16)), CAST(:syncStatus AS NVARCHAR(16)), CAST(:transactionId AS NVARCHAR(128)),
       CAST(:guid AS NVARCHAR(128)), CAST(:createdAt AS DATETIMEOFFSET(6)),
       CAST(:paidAt AS DATETIMEOFFSET(6)), CAST(:syncedAt AS DATETIMEOFFSET(6)), 0
WHERE NOT EXISTS (SELECT 1 FROM orders WITH (UPDLOCK, HOLDLOCK) WHERE order_number = :orderNumber)
  AND NOT EXISTS (SELECT 1 FROM orders WHERE payment_transaction_id = :transactionId)
