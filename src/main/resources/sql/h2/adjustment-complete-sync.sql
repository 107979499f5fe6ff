-- An adjustment's Processing -> Completed with the third party's id for its record. Fenced: only the worker holding
-- this claim token can complete; a worker whose lease was taken over updates zero rows.
UPDATE adjustments
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
