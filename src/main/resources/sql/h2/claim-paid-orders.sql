-- Atomically claims up to :#batchSize due orders for this worker (run by camel-sql; :#name reads a header).
-- Due: payment final and SyncStatus Pending whose next attempt has come, or Processing whose lease expired.
-- Only Paid payments are sent, unless the business also records final failures (includeFinalFailures = 1):
-- Failed, Expired and Cancelled, sent as not paid. A Cancelled order is never sent as paid: it is never Paid.
-- Oldest first per payment status: the order of ix_orders_sync_claimable (payment_status, id), as on PostgreSQL.
-- SKIP LOCKED: concurrent workers never wait for each other and never get the same row.
-- taken_over_claim: the claim whose expired lease this one takes over (NULL for a Pending order), for the history;
-- like every right-hand side of a SET, its CASE reads the row as it was before this update.
SELECT id, order_number, amount, currency, payment_status, payment_transaction_id, paid_at, claim_token,
       sync_attempts, taken_over_claim, paid_trace_parent
FROM FINAL TABLE (
    UPDATE orders
    SET sync_status = 'Processing',
        claim_token = :#claimToken,
        lease_until = :#leaseUntil,
        sync_attempts = sync_attempts + 1,
        taken_over_claim = CASE WHEN sync_status = 'Processing' THEN claim_token END
    WHERE id IN (
        SELECT id
        FROM orders
        WHERE ((sync_status = 'Pending' AND (next_attempt_at IS NULL OR next_attempt_at <= :#now))
               OR (sync_status = 'Processing' AND lease_until < :#now))
          AND (payment_status = 'Paid'
               OR (:#includeFinalFailures = 1 AND payment_status IN ('Failed', 'Expired', 'Cancelled')))
        ORDER BY payment_status, id
        FETCH FIRST :#batchSize ROWS ONLY
        FOR UPDATE SKIP LOCKED))
