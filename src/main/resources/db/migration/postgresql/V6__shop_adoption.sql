-- Adoption beside a shop's own orders table (docs/adopting.md). Paysync's side only: the shop's table is read and
-- written by the integrator's SQL files, never by a migration.
--
-- One intake per source: how far its keys have been read (high_key), and a lease with a fencing token so that one
-- instance at a time reads a round and a round whose lease was taken over cannot move the mark.
CREATE TABLE shop_intakes (
    source      VARCHAR(64)              NOT NULL PRIMARY KEY,
    high_key    BIGINT                   NOT NULL,
    fence       BIGINT                   NOT NULL DEFAULT 0,
    owner       VARCHAR(128),
    lease_until TIMESTAMP WITH TIME ZONE,
    rows_taken  BIGINT                   NOT NULL DEFAULT 0,
    updated_at  TIMESTAMP WITH TIME ZONE NOT NULL
);

-- Keys at or below high_key that were not visible when the intake passed them: a shop transaction that took a key
-- and had not committed yet, or a key nobody will ever commit (a rollback, an identity cache jump). Each range is read
-- again every round until its rows appear or it is older than the grace the settings give.
CREATE TABLE shop_intake_gaps (
    source     VARCHAR(64)              NOT NULL,
    gap_from   BIGINT                   NOT NULL,
    gap_to     BIGINT                   NOT NULL,
    first_seen TIMESTAMP WITH TIME ZONE NOT NULL,
    CONSTRAINT pk_shop_intake_gaps PRIMARY KEY (source, gap_from)
);

-- The write-back outbox: one row per conclusion the shop's table must learn, written in the transition's own
-- transaction and deleted once delivered.
CREATE TABLE shop_writebacks (
    id              BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    order_number    VARCHAR(64)              NOT NULL,
    conclusion      VARCHAR(16)              NOT NULL,
    created_at      TIMESTAMP WITH TIME ZONE NOT NULL,
    attempts        INTEGER                  NOT NULL DEFAULT 0,
    next_attempt_at TIMESTAMP WITH TIME ZONE NOT NULL,
    lease_until     TIMESTAMP WITH TIME ZONE,
    claim_token     VARCHAR(64),
    last_error      VARCHAR(1000),
    CONSTRAINT ck_shop_writebacks_conclusion CHECK (conclusion IN ('Paid', 'Completed', 'Failed', 'Expired'))
);
CREATE INDEX ix_shop_writebacks_due ON shop_writebacks (next_attempt_at, id);
CREATE INDEX ix_shop_writebacks_order ON shop_writebacks (order_number, id);
