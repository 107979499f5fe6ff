-- Retention: the purge's batch is done; its marker goes with this transaction.
DROP TABLE #paysync_purge
