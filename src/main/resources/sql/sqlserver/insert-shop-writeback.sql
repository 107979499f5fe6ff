-- A conclusion the shop's table must learn, written in the transition's transaction (the outbox).
INSERT INTO shop_writebacks (order_number, conclusion, created_at, attempts, next_attempt_at)
VALUES (:orderNumber, :conclusion, :now, 0, :now)
