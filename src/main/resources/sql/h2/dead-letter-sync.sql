-- Processing -> Failed (dead letter): attempts exhausted, non-retryable, or in doubt with no safe way to resend.
-- The fingerprint groups dead letters for the operator (GET /api/admin/dead-letters/groups).
UPDATE orders
SET sync_status = 'Failed',
    last_sync_error = :error,
    sync_failure_fingerprint = :fingerprint,
    dead_lettered_at = :now,
    lease_until = NULL,
    next_attempt_at = NULL
WHERE id = :id
  AND claim_token = :claimToken
  AND sync_status = 'Processing'
