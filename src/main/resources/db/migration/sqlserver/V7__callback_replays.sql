-- An authentic callback sent again (a replay, or the gateway's retry with the same webhook-id) is stored once per
-- answer: the insert looks for a row of the same webhook-id, signature valid, and the same answer first.
CREATE NONCLUSTERED INDEX ix_callbacks_webhook ON callbacks (webhook_id) WHERE signature = N'valid';
