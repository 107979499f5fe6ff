-- Retention: the connection goes back to the pool; its deletes must be refused again.
EXEC sp_set_session_context @key = N'paysync.purge', @value = NULL
