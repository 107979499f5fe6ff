-- Extends the lease of an adjustment's claim this worker still holds, just before its call. Fenced by the claim token.
UPDATE adjustments
SET lease_until = :leaseUntil
WHERE id = :id
  AND claim_token = :claimToken
  AND sync_status = N'Processing'
