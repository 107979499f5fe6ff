-- Newest first, at most :limit rows.
SELECT TOP (:limit) id, kind, order_number, transaction_id, webhook_id, detail, occurred_at
FROM anomalies
ORDER BY occurred_at DESC, id DESC
