-- Without an adjustment request route (a third party that takes no adjustments): every Final adjustment whose sync is
-- Pending, or Processing with its lease expired (a worker stopped in the middle of an attempt before the route was
-- taken out), whose order's record is written and, for a reversal, whose chargeback is Completed or Manual, becomes
-- Manual, for an operator to handle and resolve with the reference of what they did. taken_over_claim is the claim
-- of an expired lease (NULL for a Pending one; its CASE reads the row as it was before this update), so the history
-- can say that attempt may have reached the third party. Returns what moved, for the history.
SELECT id, gateway_id, order_number, taken_over_claim
FROM FINAL TABLE (
    UPDATE adjustments
    SET sync_status = 'Manual',
        lease_until = NULL,
        taken_over_claim = CASE WHEN sync_status = 'Processing' THEN claim_token END,
        next_attempt_at = NULL
    WHERE id IN (
        SELECT a.id
        FROM adjustments a
        WHERE (a.sync_status = 'Pending' OR (a.sync_status = 'Processing' AND a.lease_until < :now))
          AND a.status = 'Final'
          AND EXISTS (SELECT 1 FROM orders o
                      WHERE o.order_number = a.order_number AND o.sync_status = 'Completed')
          AND (a.reverses IS NULL
               OR EXISTS (SELECT 1 FROM adjustments c
                          WHERE c.gateway_id = a.reverses AND c.sync_status IN ('Completed', 'Manual')))
        ORDER BY a.id
        FETCH FIRST :batchSize ROWS ONLY
        FOR UPDATE SKIP LOCKED))
