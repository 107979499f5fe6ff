-- Pending -> Failed on a signed failure callback. Guarded: a final payment never changes.
UPDATE orders
SET payment_status = 'Failed'
WHERE order_number = :orderNumber
  AND payment_status = 'Pending'
