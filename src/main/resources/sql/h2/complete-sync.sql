-- Processing -> Completed with the third party's id. Fenced: only the worker holding this claim token can
-- complete; a worker whose lease was taken over updates zero rows.
UPDATE orders
SET sync_status = 'Completed',
    third_party_guid = :guid,
    synced_at = :now,
    lease_until = NULL,
    next_attempt_at = NULL,
    last_sync_error = NULL,
    sync_failure_fingerprint = NULL
WHERE id = :id
  AND claim_token = :claimToken
  AND sync_status = 'Processing'
