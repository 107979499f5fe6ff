-- The third party's record id, written back once: a row that has one keeps it.
UPDATE public.Orders
SET ThirdPartyGuid = :#thirdPartyGuid
WHERE OrderNumber = :#orderNumber
  AND ThirdPartyGuid IS NULL
