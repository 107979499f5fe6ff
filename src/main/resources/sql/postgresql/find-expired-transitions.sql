-- Retention: the oldest history rows written before the cutoff, a batch at a time.
SELECT id FROM order_transitions
WHERE occurred_at < :cutoff
ORDER BY occurred_at, id
LIMIT :batch
