-- Operator retry: Failed -> Pending, a fresh series of attempts, due now.
UPDATE orders
SET sync_status = N'Pending',
    sync_attempts = 0,
    next_attempt_at = NULL,
    claim_token = NULL
WHERE order_number = :orderNumber
  AND sync_status = N'Failed'
