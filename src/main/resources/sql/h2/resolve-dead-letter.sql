-- Operator resolve: Failed -> Completed with the id the operator found at the third party.
UPDATE orders
SET sync_status = 'Completed',
    third_party_guid = :guid,
    synced_at = :now,
    claim_token = NULL
WHERE order_number = :orderNumber
  AND sync_status = 'Failed'
