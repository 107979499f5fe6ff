INSERT INTO anomalies (kind, order_number, transaction_id, webhook_id, detail, occurred_at)
VALUES (:kind, :orderNumber, :transactionId, :webhookId, :detail, :now)
