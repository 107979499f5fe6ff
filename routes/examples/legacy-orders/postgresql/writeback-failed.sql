-- A final failure, for the transitional nullable bit (0 is failed there): only a row that says nothing yet. With the
-- plain NOT NULL bit no row is NULL and this changes nothing, as the design note wants (0 stays "not known").
UPDATE public.Orders
SET payment = FALSE
WHERE OrderNumber = :#orderNumber
  AND payment IS NULL
