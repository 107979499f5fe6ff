-- One adjustment as the operator sees it: the adjustment view, its order, when it was dead-lettered, who resolved it.
SELECT id, gateway_id, order_number, kind, amount, currency, reverses, reversed_amount, status, cause, created_at,
       final_at, sync_status, sync_attempts, third_party_guid, last_sync_error, synced_at, dead_lettered_at,
       resolved_by
FROM adjustments
WHERE gateway_id = :gatewayId
