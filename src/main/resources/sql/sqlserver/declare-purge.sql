-- Retention: tells the append-only triggers that this transaction's deletes are the purge's. A temporary table made
-- in the transaction: a rollback undoes it, and end-purge drops it before the commit, so no pooled connection keeps it.
CREATE TABLE #paysync_purge (retention BIT NOT NULL)
