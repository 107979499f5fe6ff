-- B1 floor: what the callback does to the database for one fresh order, as pgbench runs it: the guarded
-- Pending -> Paid UPDATE (sql/postgresql/mark-order-paid.sql, state, amount and currency) and its history row
-- (insert-transition.sql) in one transaction. A sequence hands each transaction its own Pending order, as the
-- signed requests do for wrk; it is read inside the transaction, so each request is one commit, as in Paysync.
BEGIN;
SELECT nextval('bench_order_ids') AS id \gset
UPDATE orders SET payment_status = 'Paid', payment_transaction_id = 'pgb_' || :id, paid_at = now()
WHERE order_number = 'B-' || :id AND payment_status = 'Pending' AND currency = 'EUR' AND amount = 10.00;
INSERT INTO order_transitions (order_number, machine, from_status, to_status, cause, detail, occurred_at, actor,
                               webhook_id)
VALUES ('B-' || :id, 'payment', 'Pending', 'Paid', 'callback msg_' || :id, 'transaction pgb_' || :id, now(),
        'gateway', 'msg_' || :id);
END;
