-- Cancelled (the shop, or an operator for it, no longer wants the payment; it is never paid): for the transitional
-- nullable bit, as a failure, only a row that says nothing yet. With the plain NOT NULL bit this changes nothing (0
-- stays "not known"); a status column gets its own value (SET Status = 'Cancelled' WHERE Status = 'Pending').
UPDATE public.Orders
SET payment = FALSE
WHERE OrderNumber = :#orderNumber
  AND payment IS NULL
