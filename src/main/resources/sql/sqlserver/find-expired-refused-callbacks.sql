-- Retention: the oldest refused callbacks (signature not valid: metadata only) received before their shorter cutoff.
SELECT TOP (:batch) id FROM callbacks
WHERE signature <> N'valid' AND received_at < :cutoff
ORDER BY received_at, id
