# The body of the create request (jq). Input: the order as Paysync hands it to the request routes,
#   {"orderNumber", "transactionId", "amount", "currency", "paid", "paidAt", "paymentStatus"}
# (amount a decimal string, paidAt ISO-8601 UTC or null). Output: the JSON the third party receives.
# Try it with the jq command: jq -f routes/third-party/create-request.jq < order.json
# The default third party's record (docs/third-party.md): paymentStatus only for an order sent
# although not paid (paysync.sync.include-final-failures).
{orderNumber, transactionId, amount, currency, paid, paidAt}
+ (if .paid then {} else {paymentStatus} end)
