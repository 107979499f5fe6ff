-- Nothing an anonymous caller sends is kept whole, and nothing is kept for ever.
--
-- A callback whose signature did not verify is stored as metadata: its size and a SHA-256 of its body, not the body.
-- Authentic callbacks keep their body (bounded by the endpoint's limit) and get the hash too.
ALTER TABLE callbacks ADD COLUMN body_sha256 CHAR(64);

-- The retention purge reads the oldest rows first, refused callbacks apart (they are kept for a shorter time).
CREATE INDEX ix_callbacks_received ON callbacks (received_at, id);
CREATE INDEX ix_callbacks_refused ON callbacks (signature, received_at, id);
CREATE INDEX ix_order_transitions_occurred ON order_transitions (occurred_at, id);
