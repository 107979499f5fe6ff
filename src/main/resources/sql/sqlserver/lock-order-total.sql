-- Takes the order's row lock, changing nothing, so that an adjustment decided from what the order already holds (a
-- refund reported as the total refunded so far) is decided and recorded while no other adjustment of the order can
-- be: the same first row lock every adjustment's transaction takes (adjust-order-total.sql). Zero rows: no such order.
UPDATE orders
SET adjusted_amount = adjusted_amount
WHERE order_number = :orderNumber
