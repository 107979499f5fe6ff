-- Candidates for expiry, oldest first; each is then expired by its own guarded statement.
SELECT TOP (:limit) order_number
FROM orders
WHERE payment_status = N'Pending'
  AND created_at < :cutoff
ORDER BY created_at
