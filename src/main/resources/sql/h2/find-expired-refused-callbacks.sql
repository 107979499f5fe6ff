-- Retention: the oldest refused callbacks (signature not valid: metadata only) received before their shorter cutoff.
SELECT id FROM callbacks
WHERE signature <> 'valid' AND received_at < :cutoff
ORDER BY received_at, id
LIMIT :batch
