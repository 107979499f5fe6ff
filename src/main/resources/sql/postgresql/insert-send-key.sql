-- Writes an order's send key (the idempotency marker, in Camel's JDBC message-id table) unless it is there already:
-- one row inserted means this claim wrote it; zero means an earlier attempt's key was found (that send is in doubt).
-- One statement instead of the repository's SELECT COUNT then INSERT, run as one batch for a claimed batch.
INSERT INTO CAMEL_MESSAGEPROCESSED (processorName, messageId, createdAt)
VALUES (:processorName, :messageId, :createdAt)
ON CONFLICT (processorName, messageId) DO NOTHING
