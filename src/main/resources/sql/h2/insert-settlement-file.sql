-- Takes a settlement file (by name and content) for this instance; a second taker gets the unique key's refusal.
INSERT INTO settlement_files (file_name, content_sha256, state, owner, lease_until, rows_done, report, taken_at)
VALUES (:fileName, :sha256, 'Applying', :owner, :leaseUntil, 0, :report, :now)
