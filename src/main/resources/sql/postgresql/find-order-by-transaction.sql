-- Which order, if any, a gateway transaction id is bound to.
SELECT order_number
FROM orders
WHERE payment_transaction_id = :transactionId
