-- When the oldest Final adjustment not (yet) at the third party became Final (NULL when none): the age metric.
-- Not synced means sync Pending, Processing, Failed or Manual: a dead letter or one left to an operator counts.
SELECT MIN(final_at) AS oldest_final_at
FROM adjustments
WHERE status = 'Final' AND sync_status IN ('Pending', 'Processing', 'Failed', 'Manual')
