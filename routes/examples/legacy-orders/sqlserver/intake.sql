-- The intake's read of the shop's table (the built-in shop-intake flow): the rows whose key is after :#after and up
-- to :#upTo, at most :#limit of them, in key order, with the columns Paysync reads (docs/adopting.md, "Intake SQL").
-- shop_key is the IDENTITY: given once at the insert and never changed. Never a rowversion: every update gives the row
-- a new one, Paysync's write-back included, and the key it left is a gap that never fills (docs/adopting.md, "The
-- key"). A table with a rowversion column RowVer can keep the read below the rows an open transaction may still
-- commit, so that no key is passed while in flight:
--   AND Id < ISNULL((SELECT MIN(Id) FROM dbo.Orders WITH (READUNCOMMITTED)
--                    WHERE Id > :#after AND RowVer >= MIN_ACTIVE_ROWVERSION()), :#upTo + 1)
-- payment is 'paid', 'failed' or 'pending'. The design note's plain bit: 1 paid, 0 not known (never a failure). Its
-- transitional nullable bit instead: CASE WHEN payment = 1 THEN 'paid' WHEN payment = 0 THEN 'failed' ELSE 'pending' END.
-- A status column: CASE Status WHEN 'Paid' THEN 'paid' WHEN 'Failed' THEN 'failed' ELSE 'pending' END.
-- READPAST is not used on purpose: a row another transaction is inserting is waited for or, under read committed
-- snapshot, passed and read again as a gap; skipping locked rows would only make more gaps.
SELECT TOP (:#limit)
       Id                   AS shop_key,
       OrderNumber          AS order_number,
       Amount               AS amount,
       Currency             AS currency,
       CASE WHEN payment = 1 THEN 'paid' ELSE 'pending' END AS payment,
       PaymentTransactionId AS transaction_id,
       ThirdPartyGuid       AS third_party_guid,
       CreatedAtUtc         AS created_at,
       PaidAtUtc            AS paid_at
FROM dbo.Orders
WHERE Id > :#after AND Id <= :#upTo
ORDER BY Id
