-- Adjustments whose sync is in one of :syncStatuses, oldest first, at most :limit rows (the operator's list).
SELECT id, gateway_id, order_number, kind, amount, currency, reverses, reversed_amount, status, cause, created_at,
       final_at, sync_status, sync_attempts, third_party_guid, last_sync_error, synced_at, dead_lettered_at,
       resolved_by
FROM adjustments
WHERE sync_status IN (:syncStatuses)
ORDER BY id
LIMIT :limit
