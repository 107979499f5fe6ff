-- After a batch, in the batch's own transaction: the rows done, the counts so far, a longer lease. Fenced by the
-- owner: an instance whose file was taken over commits nothing more of it.
UPDATE settlement_files
SET rows_done = :rowsDone, report = :report, lease_until = :leaseUntil
WHERE id = :id
  AND owner = :owner
  AND state = N'Applying'
