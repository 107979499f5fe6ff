-- Retention: deletes the rows a find-expired statement chose, in the purge's own short transaction.
DELETE FROM order_transitions WHERE id IN (:ids)
