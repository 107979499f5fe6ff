-- Not delivered (the shop's database refused or was away): again after the backoff, fenced by the claim.
UPDATE shop_writebacks
SET attempts = attempts + 1,
    next_attempt_at = :nextAttemptAt,
    lease_until = NULL,
    claim_token = NULL,
    last_error = :error
WHERE id = :id
  AND claim_token = :claimToken
