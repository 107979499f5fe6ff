-- Retention: the oldest anomalies recorded before the cutoff, a batch at a time.
SELECT TOP (:batch) id FROM anomalies
WHERE occurred_at < :cutoff
ORDER BY occurred_at, id
