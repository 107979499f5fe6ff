-- The watch's read of the shop's table (the built-in shop-intake flow, shop-watch): the rows of the orders listed in
-- :#in:orderNumbers (orders Paysync holds as not concluded), with the intake's columns. A payment bit or a GUID there
-- that Paysync did not write is a writer of the shop's still at work (docs/adopting.md, "The old writers").
SELECT Id                   AS shop_key,
       OrderNumber          AS order_number,
       Amount               AS amount,
       Currency             AS currency,
       CASE WHEN payment = TRUE THEN 'paid' ELSE 'pending' END AS payment,
       PaymentTransactionId AS transaction_id,
       ThirdPartyGuid       AS third_party_guid,
       CreatedAtUtc         AS created_at,
       PaidAtUtc            AS paid_at
FROM PUBLIC.Orders
WHERE OrderNumber IN (:#in:orderNumbers)
  AND (payment = TRUE OR ThirdPartyGuid IS NOT NULL)
