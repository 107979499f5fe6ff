-- Atomically claims up to :#batchSize due adjustments for this worker (run by camel-sql; :#name reads a header).
-- Due: SyncStatus Pending whose next attempt has come, or Processing whose lease expired; and ready: Final (a Pending
-- or Void adjustment is never sent), its order's record exists at the third party (the order's sync is Completed),
-- and a reversal's chargeback has its record too. Oldest first. An adjustment that is not ready stays Pending and is
-- taken by the first claim after its order's (or chargeback's) record is written.
-- taken_over_claim: the claim whose expired lease this one takes over (NULL for a Pending one), for the history;
-- like every right-hand side of a SET, its CASE reads the row as it was before this update.
-- The orders' claim's statement (claim-paid-orders.sql): UPDLOCK, READPAST, ROWLOCK and READCOMMITTEDLOCK on a CTE
-- over TOP (n) ... ORDER BY, updated through the CTE and returned by OUTPUT inserted.
-- Lock order: every adjustment's transaction (adjust-order-total.sql first) holds the order, then a reversal's
-- chargeback (reverse-chargeback.sql); this statement holds update locks on adjustments, a chargeback among them. Its
-- reads of the order and of the chargeback therefore wait for no lock (READPAST, READCOMMITTEDLOCK): a row held by an
-- adjustment being recorded is read past and its adjustments wait for the next round. Waiting there instead would
-- take the two tables in the opposite order, and with read committed snapshot off one side would be chosen as a
-- deadlock victim (error 1205).
WITH batch AS (
    SELECT TOP (:#batchSize) *
    FROM adjustments a WITH (UPDLOCK, READPAST, ROWLOCK, READCOMMITTEDLOCK)
    WHERE ((a.sync_status = N'Pending' AND (a.next_attempt_at IS NULL OR a.next_attempt_at <= :#now))
           OR (a.sync_status = N'Processing' AND a.lease_until < :#now))
      AND a.status = N'Final'
      AND EXISTS (SELECT 1 FROM orders o WITH (READPAST, READCOMMITTEDLOCK)
                  WHERE o.order_number = a.order_number AND o.sync_status = N'Completed')
      AND (a.reverses IS NULL
           OR EXISTS (SELECT 1 FROM adjustments c WITH (READPAST, READCOMMITTEDLOCK)
                      WHERE c.gateway_id = a.reverses AND c.sync_status = N'Completed'))
    ORDER BY a.id
)
UPDATE batch
SET sync_status = N'Processing',
    claim_token = :#claimToken,
    lease_until = :#leaseUntil,
    sync_attempts = sync_attempts + 1,
    taken_over_claim = CASE WHEN sync_status = N'Processing' THEN claim_token END
OUTPUT inserted.id, inserted.gateway_id, inserted.order_number, inserted.kind, inserted.amount, inserted.currency,
       inserted.reverses, inserted.final_at, inserted.claim_token, inserted.sync_attempts, inserted.taken_over_claim
