-- The adjustments' dead letters of one fingerprint group, oldest first: what a group retry moves, one guarded retry
-- each.
SELECT gateway_id, order_number
FROM adjustments
WHERE sync_status = N'Failed'
  AND COALESCE(sync_failure_fingerprint, N'unknown') = :fingerprint
ORDER BY id
