-- Takes one due write-back for this instance: only if no other instance holds it under a live lease.
UPDATE shop_writebacks
SET claim_token = :claimToken,
    lease_until = :leaseUntil
WHERE id = :id
  AND next_attempt_at <= :now
  AND (lease_until IS NULL OR lease_until < :now)
