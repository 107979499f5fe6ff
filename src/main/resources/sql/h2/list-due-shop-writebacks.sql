-- Due write-backs, oldest first; only each order's first one: an order's conclusions reach the shop in the order
-- they were reached (Paid before Completed), the next once the one before it is delivered. With the order's values
-- the statements write (immutable once set, so read now or at the transition alike).
SELECT w.id, w.order_number, w.conclusion, w.attempts,
       o.payment_transaction_id, o.paid_at, o.third_party_guid, o.synced_at
FROM shop_writebacks w
JOIN orders o ON o.order_number = w.order_number
WHERE w.next_attempt_at <= :now
  AND (w.lease_until IS NULL OR w.lease_until < :now)
  AND NOT EXISTS (SELECT 1 FROM shop_writebacks p WHERE p.order_number = w.order_number AND p.id < w.id)
ORDER BY w.id
LIMIT :limit
