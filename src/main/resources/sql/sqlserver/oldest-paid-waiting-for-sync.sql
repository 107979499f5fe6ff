-- When the oldest Paid order still waiting for its third-party record was paid (NULL when none): the age metric.
-- Waiting means SyncStatus Pending or Processing; dead letters (Failed) are counted on their own.
SELECT MIN(paid_at) AS oldest_paid_at
FROM orders
WHERE payment_status = N'Paid' AND sync_status IN (N'Pending', N'Processing')
