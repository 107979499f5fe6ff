-- An adjustment's Processing -> Pending after a retryable failure, due again at :nextAttemptAt. Fenced by the claim
-- token. The failure's fingerprint (http-500, timeout, ...) is kept next to its text.
UPDATE adjustments
SET sync_status = 'Pending',
    next_attempt_at = :nextAttemptAt,
    last_sync_error = :error,
    sync_failure_fingerprint = :fingerprint,
    lease_until = NULL
WHERE id = :id
  AND claim_token = :claimToken
  AND sync_status = 'Processing'
