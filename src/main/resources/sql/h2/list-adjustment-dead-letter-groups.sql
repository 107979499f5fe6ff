-- Adjustments' dead letters grouped by the fingerprint of their last failure, as the orders' are: how many, since
-- when, and the oldest as an example (its gateway id and order).
SELECT fingerprint, dead_letter_count, oldest_failed_at, gateway_id, order_number, last_sync_error
FROM (
    SELECT COALESCE(sync_failure_fingerprint, 'unknown') AS fingerprint,
           COUNT(*) OVER (PARTITION BY COALESCE(sync_failure_fingerprint, 'unknown')) AS dead_letter_count,
           MIN(dead_lettered_at) OVER (PARTITION BY COALESCE(sync_failure_fingerprint, 'unknown')) AS oldest_failed_at,
           ROW_NUMBER() OVER (PARTITION BY COALESCE(sync_failure_fingerprint, 'unknown')
                              ORDER BY CASE WHEN dead_lettered_at IS NULL THEN 1 ELSE 0 END, dead_lettered_at, id)
               AS rank_in_group,
           gateway_id, order_number, last_sync_error
    FROM adjustments
    WHERE sync_status = 'Failed'
) g
WHERE rank_in_group = 1
ORDER BY dead_letter_count DESC, fingerprint
