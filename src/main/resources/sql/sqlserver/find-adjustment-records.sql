-- The third party's ids of the chargebacks that claimed reversals reverse (the claim took only reversals whose
-- chargeback's sync is Completed).
SELECT gateway_id, third_party_guid
FROM adjustments
WHERE gateway_id IN (:gatewayIds)
