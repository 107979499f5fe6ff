-- A settlement file's row, by name and content.
SELECT id, state, owner, lease_until, rows_done, report, finished_at
FROM settlement_files
WHERE file_name = :fileName
  AND content_sha256 = :sha256
