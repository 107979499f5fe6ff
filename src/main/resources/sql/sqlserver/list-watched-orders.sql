-- The orders the shop's old writers could still touch: a payment not final, or Cancelled (a payment recorded there
-- is money nobody expects), or no third-party record yet, among the orders of the watch's window, newest first. The
-- watch asks the shop's table about these.
SELECT TOP (:limit) order_number, payment_status, sync_status, third_party_guid
FROM orders
WHERE created_at >= :since
  AND (payment_status IN (N'Pending', N'Cancelled') OR sync_status <> N'Completed')
ORDER BY id DESC
