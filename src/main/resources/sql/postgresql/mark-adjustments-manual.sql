-- Without an adjustment request route (a third party that takes no adjustments): every adjustment that a claim would
-- take (Final, due, its order's record written, a reversal's chargeback handled) becomes Manual, to be handled by an
-- operator, who resolves it with the reference of what they did. Returns what moved, for the history.
UPDATE adjustments
SET sync_status = 'Manual',
    next_attempt_at = NULL
WHERE id IN (
    SELECT a.id
    FROM adjustments a
    WHERE a.sync_status = 'Pending'
      AND a.status = 'Final'
      AND EXISTS (SELECT 1 FROM orders o
                  WHERE o.order_number = a.order_number AND o.sync_status = 'Completed')
      AND (a.reverses IS NULL
           OR EXISTS (SELECT 1 FROM adjustments c
                      WHERE c.gateway_id = a.reverses AND c.sync_status IN ('Completed', 'Manual')))
    ORDER BY a.id
    LIMIT :batchSize
    FOR UPDATE OF a SKIP LOCKED)
RETURNING id, gateway_id, order_number
