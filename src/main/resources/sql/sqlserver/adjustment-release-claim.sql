-- An adjustment's Processing -> Pending without burning an attempt: the call was never made (the circuit breaker is
-- open). Fenced by the claim token.
UPDATE adjustments
SET sync_status = N'Pending',
    sync_attempts = sync_attempts - 1,
    next_attempt_at = :nextAttemptAt,
    lease_until = NULL
WHERE id = :id
  AND claim_token = :claimToken
  AND sync_status = N'Processing'
