-- Adjustments: what happens to a Paid order's money after its record was written (a refund, a chargeback, a
-- chargeback reversed), each a record of its own named by the gateway's id for it (docs/contract.md, "Adjustments").
-- Amounts are in the currency's major units as the order's are (JPY 100 is 100); the callback refuses more decimals
-- than the currency has, so comparing them is comparing minor units.
--
-- The total rule (refunds and chargebacks not Void, less reversals not Void, at most the order's amount) is kept as a
-- running total on the order: every adjustment's insert or release is one guarded UPDATE of it, in the same
-- transaction as the adjustment's row, so concurrent adjustments of one order queue on its row lock and none can
-- push the total past the amount. A reversal's total is kept on its chargeback the same way.
ALTER TABLE orders ADD adjusted_amount DECIMAL(19, 4) NOT NULL CONSTRAINT df_orders_adjusted_amount DEFAULT 0;
GO

-- A separate batch: the new column must exist when the constraint is compiled.
ALTER TABLE orders ADD CONSTRAINT ck_orders_adjusted_amount CHECK (adjusted_amount >= 0 AND adjusted_amount <= amount);

-- The sync columns are the order's, plus sync_status 'Manual' (the third party takes no adjustments: an operator
-- handles it by hand); only a Final adjustment may leave sync Pending, so a Pending or Void one is never sent.
-- Identifiers keep the binary collation of the orders' (two ids that differ in case are two adjustments).
CREATE TABLE adjustments (
    id               BIGINT IDENTITY(1, 1) NOT NULL CONSTRAINT pk_adjustments PRIMARY KEY,
    gateway_id       NVARCHAR(128) COLLATE Latin1_General_100_BIN2 NOT NULL,
    order_number     NVARCHAR(64)  COLLATE Latin1_General_100_BIN2 NOT NULL,
    kind             NVARCHAR(24)          NOT NULL,
    amount           DECIMAL(19, 4)        NOT NULL,
    currency         NCHAR(3)              NOT NULL,
    reverses         NVARCHAR(128) COLLATE Latin1_General_100_BIN2 NULL,
    reversed_amount  DECIMAL(19, 4)        NOT NULL CONSTRAINT df_adjustments_reversed_amount DEFAULT 0,
    status           NVARCHAR(16)          NOT NULL,
    cause            NVARCHAR(300)         NOT NULL,
    created_at       DATETIMEOFFSET(6)     NOT NULL,
    final_at         DATETIMEOFFSET(6)     NULL,
    sync_status      NVARCHAR(16)          NOT NULL CONSTRAINT df_adjustments_sync_status DEFAULT N'Pending',
    sync_attempts    INT                   NOT NULL CONSTRAINT df_adjustments_sync_attempts DEFAULT 0,
    next_attempt_at  DATETIMEOFFSET(6)     NULL,
    lease_until      DATETIMEOFFSET(6)     NULL,
    claim_token      NVARCHAR(64)          NULL,
    third_party_guid NVARCHAR(128) COLLATE Latin1_General_100_BIN2 NULL,
    last_sync_error  NVARCHAR(1000)        NULL,
    synced_at        DATETIMEOFFSET(6)     NULL,
    CONSTRAINT uq_adjustments_gateway_id UNIQUE (gateway_id),
    CONSTRAINT fk_adjustments_order FOREIGN KEY (order_number) REFERENCES orders (order_number),
    CONSTRAINT ck_adjustments_kind CHECK (kind IN (N'refund', N'chargeback', N'chargeback-reversed')),
    CONSTRAINT ck_adjustments_amount CHECK (amount > 0),
    CONSTRAINT ck_adjustments_reverses
        CHECK ((kind = N'chargeback-reversed' AND reverses IS NOT NULL)
               OR (kind <> N'chargeback-reversed' AND reverses IS NULL)),
    CONSTRAINT ck_adjustments_reversed_amount
        CHECK (reversed_amount >= 0 AND reversed_amount <= amount AND (kind = N'chargeback' OR reversed_amount = 0)),
    CONSTRAINT ck_adjustments_status CHECK (status IN (N'Pending', N'Final', N'Void')),
    CONSTRAINT ck_adjustments_final_at CHECK (status = N'Pending' OR final_at IS NOT NULL),
    CONSTRAINT ck_adjustments_sync_status
        CHECK (sync_status IN (N'Pending', N'Processing', N'Completed', N'Failed', N'Manual')),
    CONSTRAINT ck_adjustments_sent_when_final CHECK (sync_status = N'Pending' OR status = N'Final'),
    CONSTRAINT ck_adjustments_completed_has_guid CHECK (sync_status <> N'Completed' OR third_party_guid IS NOT NULL)
);
CREATE NONCLUSTERED INDEX ix_adjustments_order ON adjustments (order_number, id);

-- An adjustment's transitions go into its order's history, as machine 'adjustment'.
ALTER TABLE order_transitions DROP CONSTRAINT ck_order_transitions_machine;
ALTER TABLE order_transitions ADD CONSTRAINT ck_order_transitions_machine
    CHECK (machine IN (N'payment', N'sync', N'adjustment'));
GO
