-- Retention: the oldest callbacks received before the cutoff, a batch at a time.
SELECT TOP (:batch) id FROM callbacks
WHERE received_at < :cutoff
ORDER BY received_at, id
