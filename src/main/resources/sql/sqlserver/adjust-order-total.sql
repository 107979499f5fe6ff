-- An adjustment's share of its order's running total, added (a refund or chargeback recorded: :delta its amount),
-- released (a Pending refund gone Void, or a reversal recorded: minus its amount) or 0 (a move to Final, a Void
-- recorded): one guarded UPDATE, so the total rule holds under any concurrency. Only a Paid order of the
-- adjustment's currency moves, and only within 0 and its amount. The row lock it takes is the first of every
-- adjustment's transaction (so they queue on the order, never in another order). Zero rows: the caller decides from
-- a read which guard failed.
UPDATE orders
SET adjusted_amount = adjusted_amount + :delta
WHERE order_number = :orderNumber
  AND payment_status = N'Paid'
  AND currency = :currency
  AND adjusted_amount + :delta <= amount
  AND adjusted_amount + :delta >= 0
