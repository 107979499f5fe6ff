-- Operator resolve of an adjustment's sync: Failed or Manual (the state read, :fromStatus) -> Completed with the
-- reference of what the operator did at the third party, and who did it and why.
UPDATE adjustments
SET sync_status = 'Completed',
    third_party_guid = :guid,
    synced_at = :now,
    resolved_by = :resolvedBy,
    claim_token = NULL
WHERE gateway_id = :gatewayId
  AND sync_status IN ('Failed', 'Manual')
  AND sync_status = :fromStatus
