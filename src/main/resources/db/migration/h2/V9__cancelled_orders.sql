-- A shop (or an operator for it) cancels an order that is still Pending: Cancelled is a final payment status, and a
-- conclusion the shop's own table can be told (docs/adopting.md, "Write-back"). Both checks are widened; no row
-- needs changing.
ALTER TABLE orders DROP CONSTRAINT ck_orders_payment_status;
ALTER TABLE orders ADD CONSTRAINT ck_orders_payment_status
    CHECK (payment_status IN ('Pending', 'Paid', 'Failed', 'Expired', 'Cancelled'));
ALTER TABLE shop_writebacks DROP CONSTRAINT ck_shop_writebacks_conclusion;
ALTER TABLE shop_writebacks ADD CONSTRAINT ck_shop_writebacks_conclusion
    CHECK (conclusion IN ('Paid', 'Completed', 'Failed', 'Expired', 'Cancelled'));
