-- Without an adjustment request route (a third party that takes no adjustments): every adjustment that a claim would
-- take (Final, due, its order's record written, a reversal's chargeback handled) becomes Manual, to be handled by an
-- operator, who resolves it with the reference of what they did. Returns what moved, for the history.
WITH batch AS (
    SELECT TOP (:batchSize) *
    FROM adjustments a WITH (UPDLOCK, READPAST, ROWLOCK, READCOMMITTEDLOCK)
    WHERE a.sync_status = N'Pending'
      AND a.status = N'Final'
      AND EXISTS (SELECT 1 FROM orders o
                  WHERE o.order_number = a.order_number AND o.sync_status = N'Completed')
      AND (a.reverses IS NULL
           OR EXISTS (SELECT 1 FROM adjustments c
                      WHERE c.gateway_id = a.reverses AND c.sync_status IN (N'Completed', N'Manual')))
    ORDER BY a.id
)
UPDATE batch
SET sync_status = N'Manual',
    next_attempt_at = NULL
OUTPUT inserted.id, inserted.gateway_id, inserted.order_number
