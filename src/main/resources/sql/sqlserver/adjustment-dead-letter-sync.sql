-- An adjustment's Processing -> Failed (dead letter): attempts exhausted, not retryable, or in doubt with no safe way
-- to resend. Fenced by the claim token; the fingerprint groups it for the operator.
UPDATE adjustments
SET sync_status = N'Failed',
    last_sync_error = :error,
    sync_failure_fingerprint = :fingerprint,
    dead_lettered_at = :now,
    lease_until = NULL,
    next_attempt_at = NULL
WHERE id = :id
  AND claim_token = :claimToken
  AND sync_status = N'Processing'
