-- Reconciliation candidates: Pending orders older than the threshold, in id order after the last one asked. The
-- cursor wraps around, so every old Pending order gets its turn however many keep answering "pending".
SELECT id, order_number
FROM orders
WHERE payment_status = 'Pending'
  AND created_at < :#cutoff
  AND id > :#afterId
ORDER BY id
LIMIT :#batchSize
