-- Atomically claims up to :#batchSize due orders for this worker (run by camel-sql; :#name reads a header).
-- Due: payment final and SyncStatus Pending whose next attempt has come, or Processing whose lease expired.
-- Only Paid payments are sent, unless the business also records final failures (includeFinalFailures = 1):
-- Failed, Expired and Cancelled, sent as not paid. A Cancelled order is never sent as paid: it is never Paid.
-- Oldest first per payment status: the order of ix_orders_sync_claimable (payment_status, id), as on PostgreSQL.
-- The design note's statement: a CTE over TOP (n) ... ORDER BY with UPDLOCK (claimers serialise on a row),
-- READPAST (skip rows another claimer holds) and ROWLOCK (no page locks that READPAST cannot skip), updated
-- through the CTE and returned by OUTPUT inserted. READCOMMITTEDLOCK keeps READPAST legal when the database
-- runs READ_COMMITTED_SNAPSHOT (as Azure SQL does by default). batchSize is capped at 1000, well below the
-- 5,000 locks at which SQL Server escalates to a table lock. taken_over_claim: the claim whose expired lease this
-- one takes over (NULL for a Pending order), for the history; like every right-hand side of a SET, its CASE
-- reads the row as it was before this update.
WITH batch AS (
    SELECT TOP (:#batchSize) *
    FROM orders WITH (UPDLOCK, READPAST, ROWLOCK, READCOMMITTEDLOCK)
    WHERE ((sync_status = N'Pending' AND (next_attempt_at IS NULL OR next_attempt_at <= :#now))
           OR (sync_status = N'Processing' AND lease_until < :#now))
      AND (payment_status = N'Paid'
           OR (:#includeFinalFailures = 1 AND payment_status IN (N'Failed', N'Expired', N'Cancelled')))
    ORDER BY payment_status, id
)
UPDATE batch
SET sync_status = N'Processing',
    claim_token = :#claimToken,
    lease_until = :#leaseUntil,
    sync_attempts = sync_attempts + 1,
    taken_over_claim = CASE WHEN sync_status = N'Processing' THEN claim_token END
OUTPUT inserted.id, inserted.order_number, inserted.amount, inserted.currency, inserted.payment_status,
       inserted.payment_transaction_id, inserted.paid_at, inserted.claim_token, inserted.sync_attempts,
       inserted.taken_over_claim, inserted.paid_trace_parent
