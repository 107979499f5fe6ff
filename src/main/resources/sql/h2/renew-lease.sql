-- Extends the lease of a claim this worker still holds, just before its call. Fenced by the claim token.
UPDATE orders
SET lease_until = :leaseUntil
WHERE id = :id
  AND claim_token = :claimToken
  AND sync_status = 'Processing'
