-- Paid, written back: guarded, so a late or repeated delivery never moves the row backwards (a row already paid is
-- left as it is: zero rows).
UPDATE PUBLIC.Orders
SET payment = TRUE,
    PaymentTransactionId = :#transactionId,
    PaidAtUtc = :#paidAtUtc
WHERE OrderNumber = :#orderNumber
  AND (payment = FALSE OR payment IS NULL)
