-- Orders carry two state machines (CONTRACT §1): payment_status and sync_status.
-- Every transition is one guarded UPDATE; these constraints make illegal states unrepresentable.
-- Strings are NVARCHAR because mssql-jdbc sends string parameters as Unicode by default: NVARCHAR columns
-- avoid the implicit conversion that would turn index seeks into scans. Identifiers use a binary collation so
-- that 'A-1' and 'a-1' are different orders (and transactions) as on PostgreSQL and H2, whatever the database's
-- default (usually case-insensitive) collation is.
CREATE TABLE orders (
    id                     BIGINT IDENTITY(1, 1) NOT NULL CONSTRAINT pk_orders PRIMARY KEY,
    order_number           NVARCHAR(64)  COLLATE Latin1_General_100_BIN2 NOT NULL,
    amount                 DECIMAL(19, 4)        NOT NULL,
    currency               NCHAR(3)              NOT NULL,
    payment_status         NVARCHAR(16)          NOT NULL CONSTRAINT df_orders_payment_status DEFAULT N'Pending',
    sync_status            NVARCHAR(16)          NOT NULL CONSTRAINT df_orders_sync_status DEFAULT N'Pending',
    payment_transaction_id NVARCHAR(128) COLLATE Latin1_General_100_BIN2 NULL,
    third_party_guid       NVARCHAR(128) COLLATE Latin1_General_100_BIN2 NULL,
    created_at             DATETIMEOFFSET(6)     NOT NULL,
    paid_at                DATETIMEOFFSET(6)     NULL,
    sync_attempts          INT                   NOT NULL CONSTRAINT df_orders_sync_attempts DEFAULT 0,
    next_attempt_at        DATETIMEOFFSET(6)     NULL,
    lease_until            DATETIMEOFFSET(6)     NULL,
    claim_token            NVARCHAR(64)          NULL,
    last_sync_error        NVARCHAR(1000)        NULL,
    synced_at              DATETIMEOFFSET(6)     NULL,
    CONSTRAINT uq_orders_order_number UNIQUE (order_number),
    CONSTRAINT ck_orders_amount CHECK (amount > 0),
    CONSTRAINT ck_orders_payment_status CHECK (payment_status IN (N'Pending', N'Paid', N'Failed', N'Expired')),
    CONSTRAINT ck_orders_sync_status CHECK (sync_status IN (N'Pending', N'Processing', N'Completed', N'Failed')),
    CONSTRAINT ck_orders_paid_has_transaction CHECK (payment_status <> N'Paid' OR payment_transaction_id IS NOT NULL),
    CONSTRAINT ck_orders_completed_has_guid CHECK (sync_status <> N'Completed' OR third_party_guid IS NOT NULL)
);

-- One gateway transaction binds at most one order. A UNIQUE constraint in SQL Server allows only one NULL,
-- so the rule is a filtered unique index: any number of orders without a transaction id.
CREATE UNIQUE NONCLUSTERED INDEX ux_orders_payment_transaction_id ON orders (payment_transaction_id)
    WHERE payment_transaction_id IS NOT NULL;

-- The sync claim scans only rows that can still be claimed (SyncStatus Pending or Processing).
CREATE NONCLUSTERED INDEX ix_orders_sync_due ON orders (payment_status, sync_status, next_attempt_at, id)
    WHERE sync_status IN (N'Pending', N'Processing');

-- The expiry job looks for old Pending payments (payment_status included so the filtered index also
-- covers queries that read it).
CREATE NONCLUSTERED INDEX ix_orders_payment_pending ON orders (created_at) INCLUDE (payment_status)
    WHERE payment_status = N'Pending';

-- Append-only history of every transition, with its cause.
CREATE TABLE order_transitions (
    id           BIGINT IDENTITY(1, 1) NOT NULL CONSTRAINT pk_order_transitions PRIMARY KEY,
    order_number NVARCHAR(64) COLLATE Latin1_General_100_BIN2 NOT NULL,
    machine      NVARCHAR(16)          NOT NULL,
    from_status  NVARCHAR(16)          NULL,
    to_status    NVARCHAR(16)          NOT NULL,
    cause        NVARCHAR(300)         NOT NULL,
    detail       NVARCHAR(1000)        NULL,
    occurred_at  DATETIMEOFFSET(6)     NOT NULL,
    CONSTRAINT ck_order_transitions_machine CHECK (machine IN (N'payment', N'sync'))
);
CREATE NONCLUSTERED INDEX ix_order_transitions_order ON order_transitions (order_number, id);
GO

CREATE TRIGGER tr_order_transitions_append_only ON order_transitions
INSTEAD OF UPDATE, DELETE
AS
BEGIN
    THROW 51000, N'order_transitions is append-only', 1;
END;
GO

-- Callbacks that were authentic but could not be applied: money or binding disagreements for an operator.
CREATE TABLE anomalies (
    id             BIGINT IDENTITY(1, 1) NOT NULL CONSTRAINT pk_anomalies PRIMARY KEY,
    kind           NVARCHAR(32)          NOT NULL,
    order_number   NVARCHAR(64)  COLLATE Latin1_General_100_BIN2 NULL,
    transaction_id NVARCHAR(128) COLLATE Latin1_General_100_BIN2 NULL,
    webhook_id     NVARCHAR(256) COLLATE Latin1_General_100_BIN2 NULL,
    detail         NVARCHAR(1000)        NOT NULL,
    occurred_at    DATETIMEOFFSET(6)     NOT NULL
);
CREATE NONCLUSTERED INDEX ix_anomalies_occurred ON anomalies (occurred_at, id);

-- Camel's JDBC idempotent repository (JdbcMessageIdRepository), created here rather than by Camel at run time.
CREATE TABLE CAMEL_MESSAGEPROCESSED (
    processorName NVARCHAR(255) NOT NULL,
    messageId     NVARCHAR(100) COLLATE Latin1_General_100_BIN2 NOT NULL,
    createdAt     DATETIME2     NULL,
    CONSTRAINT pk_camel_messageprocessed PRIMARY KEY (processorName, messageId)
);
