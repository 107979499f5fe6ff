-- Nothing an anonymous caller sends is kept whole, and nothing is kept for ever.
--
-- A callback whose signature did not verify is stored as metadata: its size and a SHA-256 of its body, not the body.
-- Authentic callbacks keep their body (bounded by the endpoint's limit) and get the hash too.
ALTER TABLE callbacks ADD COLUMN body_sha256 CHAR(64);

-- The retention purge reads the oldest rows first, refused callbacks apart (they are kept for a shorter time).
CREATE INDEX ix_callbacks_received ON callbacks (received_at, id);
CREATE INDEX ix_callbacks_refused ON callbacks (received_at, id) WHERE signature <> 'valid';
CREATE INDEX ix_order_transitions_occurred ON order_transitions (occurred_at, id);

-- The history and the callbacks stay append-only: no UPDATE ever, and no DELETE but the retention purge's, which
-- declares itself in its own transaction (SET LOCAL paysync.purge = 'retention') before deleting rows older than
-- the configured retention.
CREATE OR REPLACE FUNCTION paysync_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' AND current_setting('paysync.purge', true) = 'retention' THEN
        RETURN OLD;
    END IF;
    RAISE EXCEPTION '% is append-only', TG_TABLE_NAME;
END
$$;
