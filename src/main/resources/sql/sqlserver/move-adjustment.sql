-- Pending -> Final or Void. Guarded on Pending and on the news' content (order, kind, amount, currency), so news
-- about another adjustment under the same id never moves it. Zero rows: the caller decides from a read.
UPDATE adjustments
SET status = :toStatus,
    final_at = :now
WHERE gateway_id = :gatewayId
  AND status = N'Pending'
  AND order_number = :orderNumber
  AND kind = :kind
  AND amount = :amount
  AND currency = :currency
