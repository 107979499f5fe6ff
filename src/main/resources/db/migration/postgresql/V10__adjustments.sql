-- Adjustments: what happens to a Paid order's money after its record was written (a refund, a chargeback, a
-- chargeback reversed), each a record of its own named by the gateway's id for it (docs/contract.md, "Adjustments").
-- Amounts are in the currency's major units as the order's are (JPY 100 is 100); the callback refuses more decimals
-- than the currency has, so comparing them is comparing minor units.
--
-- The total rule (refunds and chargebacks not Void, less reversals not Void, at most the order's amount) is kept as a
-- running total on the order: every adjustment's insert or release is one guarded UPDATE of it, in the same
-- transaction as the adjustment's row, so concurrent adjustments of one order queue on its row lock and none can
-- push the total past the amount. A reversal's total is kept on its chargeback the same way.
ALTER TABLE orders ADD COLUMN adjusted_amount NUMERIC(19, 4) NOT NULL DEFAULT 0;
ALTER TABLE orders ADD CONSTRAINT ck_orders_adjusted_amount CHECK (adjusted_amount >= 0 AND adjusted_amount <= amount);

-- The sync columns are the order's, plus sync_status 'Manual' (the third party takes no adjustments: an operator
-- handles it by hand); only a Final adjustment may leave sync Pending, so a Pending or Void one is never sent.
CREATE TABLE adjustments (
    id               BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    gateway_id       VARCHAR(128)             NOT NULL,
    order_number     VARCHAR(64)              NOT NULL,
    kind             VARCHAR(24)              NOT NULL,
    amount           NUMERIC(19, 4)           NOT NULL,
    currency         CHAR(3)                  NOT NULL,
    reverses         VARCHAR(128),
    reversed_amount  NUMERIC(19, 4)           NOT NULL DEFAULT 0,
    status           VARCHAR(16)              NOT NULL,
    cause            VARCHAR(300)             NOT NULL,
    created_at       TIMESTAMP WITH TIME ZONE NOT NULL,
    final_at         TIMESTAMP WITH TIME ZONE,
    sync_status      VARCHAR(16)              NOT NULL DEFAULT 'Pending',
    sync_attempts    INTEGER                  NOT NULL DEFAULT 0,
    next_attempt_at  TIMESTAMP WITH TIME ZONE,
    lease_until      TIMESTAMP WITH TIME ZONE,
    claim_token      VARCHAR(64),
    third_party_guid VARCHAR(128),
    last_sync_error  VARCHAR(1000),
    synced_at        TIMESTAMP WITH TIME ZONE,
    CONSTRAINT uq_adjustments_gateway_id UNIQUE (gateway_id),
    CONSTRAINT fk_adjustments_order FOREIGN KEY (order_number) REFERENCES orders (order_number),
    CONSTRAINT ck_adjustments_kind CHECK (kind IN ('refund', 'chargeback', 'chargeback-reversed')),
    CONSTRAINT ck_adjustments_amount CHECK (amount > 0),
    CONSTRAINT ck_adjustments_reverses
        CHECK ((kind = 'chargeback-reversed' AND reverses IS NOT NULL)
               OR (kind <> 'chargeback-reversed' AND reverses IS NULL)),
    CONSTRAINT ck_adjustments_reversed_amount
        CHECK (reversed_amount >= 0 AND reversed_amount <= amount AND (kind = 'chargeback' OR reversed_amount = 0)),
    CONSTRAINT ck_adjustments_status CHECK (status IN ('Pending', 'Final', 'Void')),
    CONSTRAINT ck_adjustments_final_at CHECK (status = 'Pending' OR final_at IS NOT NULL),
    CONSTRAINT ck_adjustments_sync_status
        CHECK (sync_status IN ('Pending', 'Processing', 'Completed', 'Failed', 'Manual')),
    CONSTRAINT ck_adjustments_sent_when_final CHECK (sync_status = 'Pending' OR status = 'Final'),
    CONSTRAINT ck_adjustments_completed_has_guid CHECK (sync_status <> 'Completed' OR third_party_guid IS NOT NULL)
);
CREATE INDEX ix_adjustments_order ON adjustments (order_number, id);

-- An adjustment's transitions go into its order's history, as machine 'adjustment'.
ALTER TABLE order_transitions DROP CONSTRAINT ck_order_transitions_machine;
ALTER TABLE order_transitions ADD CONSTRAINT ck_order_transitions_machine
    CHECK (machine IN ('payment', 'sync', 'adjustment'));
