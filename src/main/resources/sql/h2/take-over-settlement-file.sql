-- Takes a file that is still being applied when its lease ran out (its instance died) or this instance holds it
-- already (its last attempt failed half-way); it resumes after the last committed batch.
UPDATE settlement_files
SET owner = :owner, lease_until = :leaseUntil
WHERE file_name = :fileName
  AND content_sha256 = :sha256
  AND state = 'Applying'
  AND (lease_until < :now OR owner = :owner)
