-- Operator retry of an adjustment's dead letter: Failed -> Pending, a fresh series of attempts, due now.
UPDATE adjustments
SET sync_status = 'Pending',
    sync_attempts = 0,
    next_attempt_at = NULL,
    claim_token = NULL
WHERE gateway_id = :gatewayId
  AND sync_status = 'Failed'
