-- Orders carry two state machines (CONTRACT §1): payment_status and sync_status.
-- Every transition is one guarded UPDATE; these constraints make illegal states unrepresentable.
CREATE TABLE orders (
    id                     BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    order_number           VARCHAR(64)              NOT NULL,
    amount                 NUMERIC(19, 4)           NOT NULL,
    currency               CHAR(3)                  NOT NULL,
    payment_status         VARCHAR(16)              NOT NULL DEFAULT 'Pending',
    sync_status            VARCHAR(16)              NOT NULL DEFAULT 'Pending',
    payment_transaction_id VARCHAR(128),
    third_party_guid       VARCHAR(128),
    created_at             TIMESTAMP WITH TIME ZONE NOT NULL,
    paid_at                TIMESTAMP WITH TIME ZONE,
    sync_attempts          INTEGER                  NOT NULL DEFAULT 0,
    next_attempt_at        TIMESTAMP WITH TIME ZONE,
    lease_until            TIMESTAMP WITH TIME ZONE,
    claim_token            VARCHAR(64),
    last_sync_error        VARCHAR(1000),
    synced_at              TIMESTAMP WITH TIME ZONE,
    CONSTRAINT uq_orders_order_number UNIQUE (order_number),
    CONSTRAINT ck_orders_amount CHECK (amount > 0),
    CONSTRAINT ck_orders_payment_status CHECK (payment_status IN ('Pending', 'Paid', 'Failed', 'Expired')),
    CONSTRAINT ck_orders_sync_status CHECK (sync_status IN ('Pending', 'Processing', 'Completed', 'Failed')),
    CONSTRAINT ck_orders_paid_has_transaction CHECK (payment_status <> 'Paid' OR payment_transaction_id IS NOT NULL),
    CONSTRAINT ck_orders_completed_has_guid CHECK (sync_status <> 'Completed' OR third_party_guid IS NOT NULL)
);

-- One gateway transaction binds at most one order; any number of orders have none yet.
CREATE UNIQUE INDEX ux_orders_payment_transaction_id ON orders (payment_transaction_id)
    WHERE payment_transaction_id IS NOT NULL;

-- The sync claim scans only rows that can still be claimed (SyncStatus Pending or Processing).
CREATE INDEX ix_orders_sync_due ON orders (payment_status, sync_status, next_attempt_at, id)
    WHERE sync_status IN ('Pending', 'Processing');

-- The expiry job looks for old Pending payments.
CREATE INDEX ix_orders_payment_pending ON orders (created_at)
    WHERE payment_status = 'Pending';

-- Append-only history of every transition, with its cause.
CREATE TABLE order_transitions (
    id           BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    order_number VARCHAR(64)              NOT NULL,
    machine      VARCHAR(16)              NOT NULL,
    from_status  VARCHAR(16),
    to_status    VARCHAR(16)              NOT NULL,
    cause        VARCHAR(300)             NOT NULL,
    detail       VARCHAR(1000),
    occurred_at  TIMESTAMP WITH TIME ZONE NOT NULL,
    CONSTRAINT ck_order_transitions_machine CHECK (machine IN ('payment', 'sync'))
);
CREATE INDEX ix_order_transitions_order ON order_transitions (order_number, id);

CREATE FUNCTION paysync_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION '% is append-only', TG_TABLE_NAME;
END
$$;
CREATE TRIGGER tr_order_transitions_append_only BEFORE UPDATE OR DELETE ON order_transitions
    FOR EACH ROW EXECUTE FUNCTION paysync_refuse_change();

-- Callbacks that were authentic but could not be applied: money or binding disagreements for an operator.
CREATE TABLE anomalies (
    id             BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    kind           VARCHAR(32)              NOT NULL,
    order_number   VARCHAR(64),
    transaction_id VARCHAR(128),
    webhook_id     VARCHAR(256),
    detail         VARCHAR(1000)            NOT NULL,
    occurred_at    TIMESTAMP WITH TIME ZONE NOT NULL
);
CREATE INDEX ix_anomalies_occurred ON anomalies (occurred_at, id);

-- Camel's JDBC idempotent repository (JdbcMessageIdRepository), created here rather than by Camel at run time.
CREATE TABLE CAMEL_MESSAGEPROCESSED (
    processorName VARCHAR(255) NOT NULL,
    messageId     VARCHAR(100) NOT NULL,
    createdAt     TIMESTAMP,
    PRIMARY KEY (processorName, messageId)
);
