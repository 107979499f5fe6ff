-- Recorded anomalies per kind (amount-mismatch, order-not-pending, transaction-conflict, sync-in-doubt, ...).
SELECT kind, COUNT(*) AS anomaly_count
FROM anomalies
GROUP BY kind
