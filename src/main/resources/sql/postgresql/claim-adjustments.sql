-- Atomically claims up to :#batchSize due adjustments for this worker (run by camel-sql; :#name reads a header).
-- Due: SyncStatus Pending whose next attempt has come, or Processing whose lease expired; and ready: Final (a Pending
-- or Void adjustment is never sent), its order's record exists at the third party (the order's sync is Completed),
-- and a reversal's chargeback has its record too. Oldest first. An adjustment that is not ready stays Pending and is
-- taken by the first claim after its order's (or chargeback's) record is written.
-- taken_over_claim: the claim whose expired lease this one takes over (NULL for a Pending one), for the history;
-- like every right-hand side of a SET, its CASE reads the row as it was before this update.
-- SKIP LOCKED: concurrent workers never wait for each other and never get the same row.
UPDATE adjustments
SET sync_status = 'Processing',
    claim_token = :#claimToken,
    lease_until = :#leaseUntil,
    sync_attempts = sync_attempts + 1,
    taken_over_claim = CASE WHEN sync_status = 'Processing' THEN claim_token END
WHERE id IN (
    SELECT a.id
    FROM adjustments a
    WHERE ((a.sync_status = 'Pending' AND (a.next_attempt_at IS NULL OR a.next_attempt_at <= :#now))
           OR (a.sync_status = 'Processing' AND a.lease_until < :#now))
      AND a.status = 'Final'
      AND EXISTS (SELECT 1 FROM orders o
                  WHERE o.order_number = a.order_number AND o.sync_status = 'Completed')
      AND (a.reverses IS NULL
           OR EXISTS (SELECT 1 FROM adjustments c
                      WHERE c.gateway_id = a.reverses AND c.sync_status = 'Completed'))
    ORDER BY a.id
    LIMIT :#batchSize
    FOR UPDATE OF a SKIP LOCKED)
RETURNING id, gateway_id, order_number, kind, amount, currency, reverses, final_at, claim_token, sync_attempts,
          taken_over_claim
