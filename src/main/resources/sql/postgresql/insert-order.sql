-- A new order: both state machines start at Pending.
INSERT INTO orders (order_number, amount, currency, payment_status, sync_status, sync_attempts, created_at)
VALUES (:orderNumber, :amount, :currency, 'Pending', 'Pending', 0, :now)
