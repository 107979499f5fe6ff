-- The file is applied (Done) or refused (Failed), with its report. Fenced by the owner as the checkpoint is.
UPDATE settlement_files
SET state = :state, report = :report, finished_at = :now, lease_until = :now
WHERE id = :id
  AND owner = :owner
  AND state = N'Applying'
