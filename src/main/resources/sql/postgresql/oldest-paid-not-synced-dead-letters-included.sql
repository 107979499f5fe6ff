-- When the oldest order that is Paid but not (yet) at the third party was paid: the operator's "how far behind".
-- Dead letters count too: they are paid and not synced. NULL when there is none.
SELECT MIN(paid_at) AS oldest_paid_at
FROM orders
WHERE payment_status = 'Paid' AND sync_status IN ('Pending', 'Processing', 'Failed')
