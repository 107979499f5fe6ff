-- Reconciliation candidates: Pending orders older than the threshold, in id order after the last one asked. The
-- cursor wraps around, so every old Pending order gets its turn however many keep answering "pending".
SELECT TOP (:#batchSize) id, order_number
FROM orders
WHERE payment_status = N'Pending'
  AND created_at < :#cutoff
  AND id > :#afterId
ORDER BY id
