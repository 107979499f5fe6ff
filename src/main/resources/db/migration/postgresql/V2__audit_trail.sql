-- Issue 5, operating it: the cause of every transition in structured columns, the raw callbacks with their
-- verification result, and a fingerprint of the last sync failure so dead letters can be grouped and replayed.

-- Who made a transition (actor: gateway, worker, expiry, operator) and the ids that tie it to its cause. Rows
-- written before this version carry only the free-text cause.
ALTER TABLE order_transitions
    ADD COLUMN actor       VARCHAR(16),
    ADD COLUMN webhook_id  VARCHAR(256),
    ADD COLUMN claim_token VARCHAR(64),
    ADD COLUMN worker_id   VARCHAR(128),
    ADD COLUMN error       VARCHAR(1000),
    ADD COLUMN fingerprint VARCHAR(64);

-- The last sync failure's fingerprint (http-500, timeout, ...) next to its text, when the order became a dead
-- letter, and the claim a claim took over when its lease had expired (so the history can say so).
-- Dead letters from before this version are grouped as 'unknown', dated by their history.
ALTER TABLE orders
    ADD COLUMN sync_failure_fingerprint VARCHAR(64),
    ADD COLUMN dead_lettered_at         TIMESTAMP WITH TIME ZONE,
    ADD COLUMN taken_over_claim         VARCHAR(64);
UPDATE orders
SET sync_failure_fingerprint = 'unknown',
    dead_lettered_at = (SELECT MAX(t.occurred_at) FROM order_transitions t
                        WHERE t.order_number = orders.order_number AND t.machine = 'sync' AND t.to_status = 'Failed')
WHERE sync_status = 'Failed';
CREATE INDEX ix_orders_dead_letters ON orders (sync_failure_fingerprint, dead_lettered_at, id)
    WHERE sync_status = 'Failed';

-- Every request to the callback endpoint, refused ones included: an audit log, not order state (CONTRACT I5 is
-- about orders). Never a signature header or a secret; the body as received, bounded by the endpoint's 64 KiB
-- limit (a larger body is not stored, only its size). Append-only, like the history.
CREATE TABLE callbacks (
    id           BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    received_at  TIMESTAMP WITH TIME ZONE NOT NULL,
    webhook_id   VARCHAR(256),
    order_number VARCHAR(64),
    content_type VARCHAR(128),
    signature    VARCHAR(16)              NOT NULL,
    http_status  INTEGER                  NOT NULL,
    outcome      VARCHAR(32)              NOT NULL,
    body_size    INTEGER                  NOT NULL,
    body         BYTEA,
    CONSTRAINT ck_callbacks_signature
        CHECK (signature IN ('valid', 'invalid', 'missing', 'malformed', 'expired', 'not-checked')),
    CONSTRAINT ck_callbacks_body_bounded CHECK (body IS NULL OR octet_length(body) <= 65536)
);
CREATE INDEX ix_callbacks_order ON callbacks (order_number, id);
CREATE TRIGGER tr_callbacks_append_only BEFORE UPDATE OR DELETE ON callbacks
    FOR EACH ROW EXECUTE FUNCTION paysync_refuse_change();
