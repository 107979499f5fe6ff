-- Issue 6, B3: the claim takes the oldest due orders (TOP (n) ... ORDER BY id). ix_orders_sync_due puts
-- sync_status and next_attempt_at between payment_status and id, so no index returned claimable Paid orders in id
-- order. This filtered index is keyed (payment_status, id), so a claim seeks the Paid entries in id order and
-- stops after its batch, whatever the size of the history (filtered index: only rows that can still be claimed).
CREATE NONCLUSTERED INDEX ix_orders_sync_claimable ON orders (payment_status, id)
    WHERE sync_status IN (N'Pending', N'Processing');
