-- An anomaly of a gateway event, which the gateway delivers again until it is answered 2xx: written once per
-- event id and kind, however often the event comes.
INSERT INTO anomalies (kind, order_number, transaction_id, webhook_id, detail, occurred_at)
SELECT :kind, :orderNumber, :transactionId, :webhookId, :detail, :now
WHERE NOT EXISTS (SELECT 1 FROM anomalies WHERE kind = :kind AND webhook_id = :webhookId)
