# Ledger's entry for a paid order (jq). Input: the order as Paysync hands it to the request routes,
#   {"orderNumber", "transactionId", "amount", "currency", "paid", "paidAt", "paymentStatus"}.
# Try it: jq -f routes/third-party/create-request.jq < order.json
{
  entry: {
    reference: .orderNumber,
    payment: {
      id: .transactionId,
      amount: {value: .amount, currency: .currency},
      status: (if .paid then "PAID" else .paymentStatus | ascii_upcase end)
    },
    settledAt: .paidAt
  }
}
