-- Pending -> Expired once the payment window has passed. Guarded: a payment that became Paid (or Failed) in
-- the meantime is never touched, so an order is either Paid and sent, or Expired and never sent.
UPDATE orders
SET payment_status = 'Expired'
WHERE order_number = :orderNumber
  AND payment_status = 'Pending'
  AND created_at < :cutoff
