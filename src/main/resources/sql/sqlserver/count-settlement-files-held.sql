-- Whether another live instance is applying a file of this name: then this one need not even read it.
SELECT COUNT(*)
FROM settlement_files
WHERE file_name = :fileName
  AND state = N'Applying'
  AND lease_until >= :now
  AND owner <> :owner
