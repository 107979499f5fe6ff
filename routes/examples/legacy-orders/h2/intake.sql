-- The intake's read of the shop's table (the built-in shop-intake flow): the rows whose key is after :#after and up
-- to :#upTo, at most :#limit of them, in key order, with the columns Paysync reads (docs/adopting.md, "Intake SQL").
-- shop_key must increase as rows are inserted (an identity or sequence column).
-- payment is 'paid', 'failed' or 'pending'. The design note's plain bit: 1 paid, 0 not known (never a failure). Its
-- transitional nullable bit instead: CASE WHEN payment = TRUE THEN 'paid' WHEN payment = FALSE THEN 'failed' ELSE 'pending' END.
-- A status column: CASE Status WHEN 'Paid' THEN 'paid' WHEN 'Failed' THEN 'failed' ELSE 'pending' END.
-- A row another transaction is inserting is not visible yet: the intake passes its key and reads it again as a gap.
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
WHERE Id > :#after AND Id <= :#upTo
ORDER BY Id
LIMIT :#limit
