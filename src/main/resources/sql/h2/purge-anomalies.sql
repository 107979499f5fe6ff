-- Retention: deletes the rows a find-expired statement chose, in the purge's own short transaction.
DELETE FROM anomalies WHERE id IN (:ids)
