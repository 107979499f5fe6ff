-- Paid, written back: guarded, so a late or repeated delivery never moves the row backwards (a row already paid is
-- left as it is: zero rows).
UPDATE dbo.Orders
SET payment = 1,
    PaymentTransactionId = :#transactionId,
    PaidAtUtc = :#paidAtUtc
WHERE OrderNumber = :#orderNumber
  AND (payment = 0 OR payment IS NULL)
