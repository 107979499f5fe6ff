-- Retention: tells the append-only triggers that this connection's deletes are the purge's, until end-purge.
EXEC sp_set_session_context @key = N'paysync.purge', @value = N'retention'
