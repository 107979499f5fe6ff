# The body of the adjustment request (jq). Input: the adjustment as Paysync hands it to the request routes,
#   {"adjustmentId", "kind", "amount", "currency", "finalAt", "orderNumber", "orderRecordId", "transactionId",
#    "reverses", "reversesRecordId"}
# (kind refund, chargeback or chargeback-reversed; amount a decimal string; orderRecordId the third party's id of the
# order's record; for a reversal, reversesRecordId the id of the chargeback's record, null otherwise).
# Output: the JSON the third party receives. Try it: jq -f routes/third-party/adjustment-request.jq < adjustment.json
# The default third party's adjustment record (docs/third-party.md): a new record referring to the order's.
{adjustmentId, kind, amount, currency, orderNumber, refersTo: .orderRecordId}
+ (if .reversesRecordId then {reverses: .reversesRecordId} else {} end)
