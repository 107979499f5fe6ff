-- A reversal's share of the chargeback it names: only a Final chargeback of the same order and currency, and never
-- past its amount, so two reversals of one chargeback cannot together return more than it took. Zero rows: the
-- caller decides from a read.
UPDATE adjustments
SET reversed_amount = reversed_amount + :amount
WHERE gateway_id = :reverses
  AND order_number = :orderNumber
  AND kind = 'chargeback'
  AND status = 'Final'
  AND currency = :currency
  AND reversed_amount + :amount <= amount
