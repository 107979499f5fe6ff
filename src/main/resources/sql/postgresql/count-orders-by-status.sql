SELECT payment_status, sync_status, COUNT(*) AS order_count
FROM orders
GROUP BY payment_status, sync_status
