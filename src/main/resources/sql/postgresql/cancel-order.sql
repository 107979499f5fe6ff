-- The shop (its backend, or an operator for it) cancels an order still Pending: Pending -> Cancelled. Guarded as every
-- payment transition: a final payment never changes, so a cancel racing a success leaves exactly one of them applied,
-- and a success that comes after it finds no Pending order to move. Zero rows: the caller reads the order and decides.
UPDATE orders
SET payment_status = 'Cancelled'
WHERE order_number = :orderNumber
  AND payment_status = 'Pending'
