-- One row of the append-only history, written in the same transaction as the transition it records.
INSERT INTO order_transitions (order_number, machine, from_status, to_status, cause, detail, occurred_at)
VALUES (:orderNumber, :machine, :fromStatus, :toStatus, :cause, :detail, :now)
