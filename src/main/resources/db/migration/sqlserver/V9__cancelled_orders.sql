-- A shop (or an operator for it) cancels an order that is still Pending: Cancelled is a final payment status, and a
-- conclusion the shop's own table can be told (docs/adopting.md, "Write-back"). Both checks are widened; no row
-- needs changing. WITH CHECK: the rows there are checked against the new constraints, which the optimizer then
-- trusts, as those of V1 and V6.
ALTER TABLE orders DROP CONSTRAINT ck_orders_payment_status;
ALTER TABLE orders WITH CHECK ADD CONSTRAINT ck_orders_payment_status
    CHECK (payment_status IN (N'Pending', N'Paid', N'Failed', N'Expired', N'Cancelled'));
ALTER TABLE shop_writebacks DROP CONSTRAINT ck_shop_writebacks_conclusion;
ALTER TABLE shop_writebacks WITH CHECK ADD CONSTRAINT ck_shop_writebacks_conclusion
    CHECK (conclusion IN (N'Paid', N'Completed', N'Failed', N'Expired', N'Cancelled'));
