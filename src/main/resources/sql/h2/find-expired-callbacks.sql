-- Retention: the oldest callbacks received before the cutoff, a batch at a time.
SELECT id FROM callbacks
WHERE received_at < :cutoff
ORDER BY received_at, id
LIMIT :batch
