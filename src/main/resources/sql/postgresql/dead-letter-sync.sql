-- Processing -> Failed (dead letter): attempts exhausted, non-retryable, or in doubt with no safe way to resend.
UPDATE orders
SET sync_status = 'Failed',
    last_sync_error = :error,
    lease_until = NULL,
    next_attempt_at = NULL
WHERE id = :id
  AND claim_token = :claimToken
  AND sync_status = 'Processing'
