-- Expired (no payment came in the window): for the nullable bit, as a failure; only a row that says nothing yet.
UPDATE public.Orders
SET payment = FALSE
WHERE OrderNumber = :#orderNumber
  AND payment IS NULL
