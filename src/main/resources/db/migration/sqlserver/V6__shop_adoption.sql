-- Adoption beside a shop's own orders table (docs/adopting.md). Paysync's side only: the shop's table is read and
-- written by the integrator's SQL files, never by a migration.
--
-- One intake per source: how far its keys have been read (high_key), and a lease with a fencing token so that one
-- instance at a time reads a round and a round whose lease was taken over cannot move the mark.
CREATE TABLE shop_intakes (
    source      NVARCHAR(64)  COLLATE Latin1_General_100_BIN2 NOT NULL CONSTRAINT pk_shop_intakes PRIMARY KEY,
    high_key    BIGINT                   NOT NULL,
    fence       BIGINT                   NOT NULL CONSTRAINT df_shop_intakes_fence DEFAULT 0,
    owner       NVARCHAR(128)             NULL,
    lease_until DATETIMEOFFSET(6)        NULL,
    rows_taken  BIGINT                   NOT NULL CONSTRAINT df_shop_intakes_rows_taken DEFAULT 0,
    updated_at  DATETIMEOFFSET(6)        NOT NULL
);

-- Keys at or below high_key that were not visible when the intake passed them: a shop transaction that took a key
-- and had not committed yet, or a key nobody will ever commit (a rollback, an identity cache jump). Each range is read
-- again every round until its rows appear or it is older than the grace the settings give.
CREATE TABLE shop_intake_gaps (
    source     NVARCHAR(64)  COLLATE Latin1_General_100_BIN2 NOT NULL,
    gap_from   BIGINT                   NOT NULL,
    gap_to     BIGINT                   NOT NULL,
    first_seen DATETIMEOFFSET(6)        NOT NULL,
    CONSTRAINT pk_shop_intake_gaps PRIMARY KEY (source, gap_from)
);

-- The write-back outbox: one row per conclusion the shop's table must learn, written in the transition's own
-- transaction and deleted once delivered.
CREATE TABLE shop_writebacks (
    id              BIGINT IDENTITY(1, 1) NOT NULL CONSTRAINT pk_shop_writebacks PRIMARY KEY,
    order_number    NVARCHAR(64)  COLLATE Latin1_General_100_BIN2 NOT NULL,
    conclusion      NVARCHAR(16)              NOT NULL,
    created_at      DATETIMEOFFSET(6)        NOT NULL,
    attempts        INTEGER                  NOT NULL CONSTRAINT df_shop_writebacks_attempts DEFAULT 0,
    next_attempt_at DATETIMEOFFSET(6)        NOT NULL,
    lease_until     DATETIMEOFFSET(6)        NULL,
    claim_token     NVARCHAR(64)              NULL,
    last_error      NVARCHAR(1000)            NULL,
    CONSTRAINT ck_shop_writebacks_conclusion CHECK (conclusion IN (N'Paid', N'Completed', N'Failed', N'Expired'))
);
CREATE INDEX ix_shop_writebacks_due ON shop_writebacks (next_attempt_at, id);
CREATE INDEX ix_shop_writebacks_order ON shop_writebacks (order_number, id);
