# paidAt in the precisions a third party may ask for (docs/third-party.md, "Dates"): each field is one choice, as an
# integrator would write it in routes/third-party/create-request.jq. paidAt is null for an order sent unpaid.
{
  orderNumber,
  paidAt,
  seconds: (.paidAt | if . == null then null else .[0:19] + "Z" end),
  millis: (.paidAt | if . == null then null
           else capture("^(?<s>[^.Z]+)(?<f>[.][0-9]+)?Z$") | .s + ((.f // ".") + "000")[0:4] + "Z" end),
  epochSeconds: (.paidAt | if . == null then null else .[0:19] + "Z" | fromdateiso8601 end),
  date: (.paidAt | if . == null then null else .[0:10] end)
}
