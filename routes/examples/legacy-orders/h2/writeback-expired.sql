-- Expired (no payment came in the window): for the nullable bit, as a failure; only a row that says nothing yet.
UPDATE PUBLIC.Orders
SET payment = FALSE
WHERE OrderNumber = :#orderNumber
  AND payment IS NULL
