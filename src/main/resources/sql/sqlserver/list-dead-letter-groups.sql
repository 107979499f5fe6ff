-- Dead letters grouped by the fingerprint of their last failure: how many, since when, and the oldest as an
-- example. A dead letter without a fingerprint (written by an older version) is in the group 'unknown'.
SELECT fingerprint, dead_letter_count, oldest_failed_at, order_number, last_sync_error
FROM (
    SELECT COALESCE(sync_failure_fingerprint, N'unknown') AS fingerprint,
           COUNT(*) OVER (PARTITION BY COALESCE(sync_failure_fingerprint, N'unknown')) AS dead_letter_count,
           MIN(dead_lettered_at) OVER (PARTITION BY COALESCE(sync_failure_fingerprint, N'unknown')) AS oldest_failed_at,
           ROW_NUMBER() OVER (PARTITION BY COALESCE(sync_failure_fingerprint, N'unknown')
                              ORDER BY CASE WHEN dead_lettered_at IS NULL THEN 1 ELSE 0 END, dead_lettered_at, id)
               AS rank_in_group,
           order_number, last_sync_error
    FROM orders
    WHERE sync_status = N'Failed'
) g
WHERE rank_in_group = 1
ORDER BY dead_letter_count DESC, fingerprint
