-- Adjustments per kind and status (the metrics' gauge).
SELECT kind, status, COUNT(*) AS adjustment_count
FROM adjustments
GROUP BY kind, status
