-- Nothing an anonymous caller sends is kept whole, and nothing is kept for ever.
--
-- A callback whose signature did not verify is stored as metadata: its size and a SHA-256 of its body, not the body.
-- Authentic callbacks keep their body (bounded by the endpoint's limit) and get the hash too.
ALTER TABLE callbacks ADD body_sha256 CHAR(64) NULL;
GO

-- The retention purge reads the oldest rows first, refused callbacks apart (they are kept for a shorter time).
CREATE NONCLUSTERED INDEX ix_callbacks_received ON callbacks (received_at, id);
CREATE NONCLUSTERED INDEX ix_callbacks_refused ON callbacks (received_at, id) WHERE signature <> N'valid';
CREATE NONCLUSTERED INDEX ix_order_transitions_occurred ON order_transitions (occurred_at, id);
GO

-- The history and the callbacks stay append-only: no UPDATE ever, and no DELETE but the retention purge's, which
-- declares itself in its transaction (a temporary table #paysync_purge, created and dropped inside it, so a rollback
-- or a pooled connection never keeps it) before deleting rows older than the configured retention. An INSTEAD OF
-- trigger's own DELETE on its table does not fire it again.
ALTER TRIGGER tr_order_transitions_append_only ON order_transitions
INSTEAD OF UPDATE, DELETE
AS
BEGIN
    SET NOCOUNT ON;
    IF NOT EXISTS (SELECT 1 FROM inserted) AND OBJECT_ID(N'tempdb..#paysync_purge') IS NOT NULL
    BEGIN
        DELETE t FROM order_transitions t INNER JOIN deleted d ON d.id = t.id;
        RETURN;
    END;
    THROW 51000, N'order_transitions is append-only', 1;
END;
GO

ALTER TRIGGER tr_callbacks_append_only ON callbacks
INSTEAD OF UPDATE, DELETE
AS
BEGIN
    SET NOCOUNT ON;
    IF NOT EXISTS (SELECT 1 FROM inserted) AND OBJECT_ID(N'tempdb..#paysync_purge') IS NOT NULL
    BEGIN
        DELETE c FROM callbacks c INNER JOIN deleted d ON d.id = c.id;
        RETURN;
    END;
    THROW 51000, N'callbacks is append-only', 1;
END;
GO
