-- Pending -> Paid. Guarded: only a Pending order moves, and the unique index on payment_transaction_id
-- refuses a transaction that is already bound to another order. The callback's amount and currency are part of
-- the guard, so the hot path needs no read first. Zero rows means the caller must decide (from a read then).
UPDATE orders
SET payment_status = N'Paid',
    payment_transaction_id = :transactionId,
    paid_at = :now,
    paid_trace_parent = :traceParent
WHERE order_number = :orderNumber
  AND payment_status = N'Pending'
  AND currency = :currency
  AND amount = :amount
