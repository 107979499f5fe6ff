-- Without an adjustment request route (a third party that takes no adjustments): every Final adjustment whose sync is
-- Pending, or Processing with its lease expired (a worker stopped in the middle of an attempt before the route was
-- taken out), whose order's record is written and, for a reversal, whose chargeback is Completed or Manual, becomes
-- Manual, for an operator to handle and resolve with the reference of what they did. taken_over_claim is the claim
-- of an expired lease (NULL for a Pending one; its CASE reads the row as it was before this update), so the history
-- can say that attempt may have reached the third party. Returns what moved, for the history.
-- Lock order: every adjustment's transaction (adjust-order-total.sql first) holds the order, then a reversal's
-- chargeback (reverse-chargeback.sql); this statement holds update locks on adjustments, a chargeback among them. Its
-- reads of the order and of the chargeback therefore wait for no lock (READPAST, READCOMMITTEDLOCK): a row held by an
-- adjustment being recorded is read past and its adjustments wait for the next round. Waiting there instead would
-- take the two tables in the opposite order, and with read committed snapshot off one side would be chosen as a
-- deadlock victim (error 1205).
WITH batch AS (
    SELECT TOP (:batchSize) *
    FROM adjustments a WITH (UPDLOCK, READPAST, ROWLOCK, READCOMMITTEDLOCK)
    WHERE (a.sync_status = N'Pending' OR (a.sync_status = N'Processing' AND a.lease_until < :now))
      AND a.status = N'Final'
      AND EXISTS (SELECT 1 FROM orders o WITH (READPAST, READCOMMITTEDLOCK)
                  WHERE o.order_number = a.order_number AND o.sync_status = N'Completed')
      AND (a.reverses IS NULL
           OR EXISTS (SELECT 1 FROM adjustments c WITH (READPAST, READCOMMITTEDLOCK)
                      WHERE c.gateway_id = a.reverses AND c.sync_status IN (N'Completed', N'Manual')))
    ORDER BY a.id
)
UPDATE batch
SET sync_status = N'Manual',
    lease_until = NULL,
    taken_over_claim = CASE WHEN sync_status = N'Processing' THEN claim_token END,
    next_attempt_at = NULL
OUTPUT inserted.id, inserted.gateway_id, inserted.order_number, inserted.taken_over_claim
