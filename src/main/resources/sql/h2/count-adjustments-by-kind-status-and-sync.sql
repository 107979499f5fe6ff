-- Adjustments per kind, status and sync status (the metrics' gauge).
SELECT kind, status, sync_status, COUNT(*) AS adjustment_count
FROM adjustments
GROUP BY kind, status, sync_status
