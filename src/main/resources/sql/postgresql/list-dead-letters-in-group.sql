-- The dead letters of one fingerprint group, oldest first: what a group replay moves, one guarded retry each.
SELECT order_number
FROM orders
WHERE sync_status = 'Failed'
  AND COALESCE(sync_failure_fingerprint, 'unknown') = :fingerprint
ORDER BY id
