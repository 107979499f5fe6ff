-- An order's history, oldest first (ids follow commit order per order: each transition holds the order's row lock).
SELECT id, machine, from_status, to_status, cause, detail, actor, webhook_id, claim_token, worker_id, error,
       fingerprint, occurred_at
FROM order_transitions
WHERE order_number = :orderNumber
ORDER BY id
