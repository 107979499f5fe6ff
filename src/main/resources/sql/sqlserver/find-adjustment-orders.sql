-- What the requests of claimed adjustments need of their orders, read after the claim: the order's record exists
-- (the claim took only adjustments whose order's sync is Completed), and its id never changes after that.
SELECT order_number, payment_status, payment_transaction_id, paid_at, third_party_guid
FROM orders
WHERE order_number IN (:orderNumbers)
