-- An operator settles an order left Pending (no final answer came from the gateway): Pending -> Failed or Expired.
-- Guarded as every payment transition: a final payment never changes, so a close racing a success callback
-- leaves exactly one of them applied.
UPDATE orders
SET payment_status = :paymentStatus
WHERE order_number = :orderNumber
  AND payment_status = 'Pending'
