-- Issue 5, operating it: the cause of every transition in structured columns, the raw callbacks with their
-- verification result, and a fingerprint of the last sync failure so dead letters can be grouped and replayed.

-- Who made a transition (actor: gateway, worker, expiry, operator) and the ids that tie it to its cause. Rows
-- written before this version carry only the free-text cause.
ALTER TABLE order_transitions ADD
    actor       NVARCHAR(16)   NULL,
    webhook_id  NVARCHAR(256)  COLLATE Latin1_General_100_BIN2 NULL,
    claim_token NVARCHAR(64)   NULL,
    worker_id   NVARCHAR(128)  NULL,
    error       NVARCHAR(1000) NULL,
    fingerprint NVARCHAR(64)   NULL;

-- The last sync failure's fingerprint (http-500, timeout, ...) next to its text, when the order became a dead
-- letter, and the claim a claim took over when its lease had expired (so the history can say so).
ALTER TABLE orders ADD
    sync_failure_fingerprint NVARCHAR(64)      NULL,
    dead_lettered_at         DATETIMEOFFSET(6) NULL,
    taken_over_claim         NVARCHAR(64)      NULL;
GO

-- Dead letters from before this version are grouped as 'unknown', dated by their history. (A separate batch: the
-- new columns must exist when it is compiled.)
UPDATE orders
SET sync_failure_fingerprint = N'unknown',
    dead_lettered_at = (SELECT MAX(t.occurred_at) FROM order_transitions t
                        WHERE t.order_number = orders.order_number AND t.machine = N'sync' AND t.to_status = N'Failed')
WHERE sync_status = N'Failed';
CREATE NONCLUSTERED INDEX ix_orders_dead_letters ON orders (sync_failure_fingerprint, dead_lettered_at, id)
    INCLUDE (order_number, last_sync_error)
    WHERE sync_status = N'Failed';

-- Every request to the callback endpoint, refused ones included: an audit log, not order state (CONTRACT I5 is
-- about orders). Never a signature header or a secret; the body as received, bounded by the endpoint's 64 KiB
-- limit (a larger body is not stored, only its size). Append-only, like the history.
CREATE TABLE callbacks (
    id           BIGINT IDENTITY(1, 1) NOT NULL CONSTRAINT pk_callbacks PRIMARY KEY,
    received_at  DATETIMEOFFSET(6)     NOT NULL,
    webhook_id   NVARCHAR(256) COLLATE Latin1_General_100_BIN2 NULL,
    order_number NVARCHAR(64)  COLLATE Latin1_General_100_BIN2 NULL,
    content_type NVARCHAR(128)         NULL,
    signature    NVARCHAR(16)          NOT NULL,
    http_status  INT                   NOT NULL,
    outcome      NVARCHAR(32)          NOT NULL,
    body_size    INT                   NOT NULL,
    body         VARBINARY(MAX)        NULL,
    CONSTRAINT ck_callbacks_signature
        CHECK (signature IN (N'valid', N'invalid', N'missing', N'malformed', N'expired', N'not-checked')),
    CONSTRAINT ck_callbacks_body_bounded CHECK (body IS NULL OR DATALENGTH(body) <= 65536)
);
CREATE NONCLUSTERED INDEX ix_callbacks_order ON callbacks (order_number, id);
GO

CREATE TRIGGER tr_callbacks_append_only ON callbacks
INSTEAD OF UPDATE, DELETE
AS
BEGIN
    THROW 51000, N'callbacks is append-only', 1;
END;
GO
