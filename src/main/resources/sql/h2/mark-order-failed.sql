-- Pending -> Failed on a signed failure callback. Guarded: a final payment never changes, and the callback's
-- amount and currency must be the order's. Zero rows means the caller must decide (from a read then).
UPDATE orders
SET payment_status = 'Failed'
WHERE order_number = :orderNumber
  AND payment_status = 'Pending'
  AND currency = :currency
  AND amount = :amount
