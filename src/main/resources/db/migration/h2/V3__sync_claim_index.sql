-- Issue 6, B3: the claim takes the oldest due orders (ORDER BY id LIMIT batch); an index keyed (payment_status, id)
-- returns the Paid ones in id order, so a claim stops after its batch whatever the size of the history. (H2 has no
-- partial indexes; PostgreSQL and SQL Server filter this index on the claimable sync statuses.)
CREATE INDEX ix_orders_sync_claimable ON orders (payment_status, id);
