-- Issue 6, B3: the claim takes the oldest due orders (ORDER BY id LIMIT batch). ix_orders_sync_due puts
-- sync_status and next_attempt_at between payment_status and id, so no index returned claimable Paid orders in id
-- order, and the planner walked the primary key instead, filtering out every synced order: 160 ms per claim with
-- 1 M rows, growing with the history. This index is keyed (payment_status, id), so a claim reads the Paid entries
-- in id order and stops after its batch, whatever the size of the history.
CREATE INDEX ix_orders_sync_claimable ON orders (payment_status, id)
    WHERE sync_status IN ('Pending', 'Processing');
