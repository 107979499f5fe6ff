-- What an adjustment the guarded total refused is decided from: the order's state, currency, amount and total.
SELECT amount, currency, payment_status, adjusted_amount
FROM orders
WHERE order_number = :orderNumber
