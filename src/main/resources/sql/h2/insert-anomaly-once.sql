-- An anomaly that a repeated source (reconciliation asks every round) would otherwise record again and again:
-- written only if the same kind, order and detail is not recorded yet.
INSERT INTO anomalies (kind, order_number, transaction_id, webhook_id, detail, occurred_at)
SELECT :kind, :orderNumber, :transactionId, :webhookId, :detail, :now
WHERE NOT EXISTS (SELECT 1 FROM anomalies WHERE kind = :kind AND order_number = :orderNumber AND detail = :detail)
