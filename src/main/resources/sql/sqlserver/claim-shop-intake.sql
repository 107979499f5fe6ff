-- Takes (or keeps) an intake's lease for one round: only if the fencing token is still the one just read and the
-- lease is free, expired or this instance's. One row means the round is this instance's, under fence + 1.
UPDATE shop_intakes
SET owner = :owner,
    lease_until = :leaseUntil,
    fence = fence + 1
WHERE source = :source
  AND fence = :fence
  AND (owner IS NULL OR owner = :owner OR lease_until < :now)
