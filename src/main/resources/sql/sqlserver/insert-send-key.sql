-- Writes an order's send key (the idempotency marker, in Camel's JDBC message-id table) unless it is there already:
-- one row inserted means this claim wrote it; zero means an earlier attempt's key was found (that send is in doubt).
-- One statement instead of the repository's SELECT COUNT then INSERT, run as one batch for a claimed batch.
-- UPDLOCK, HOLDLOCK: the existence check holds its key range until the insert, so two claims cannot both insert.
INSERT INTO CAMEL_MESSAGEPROCESSED (processorName, messageId, createdAt)
SELECT :processorName, :messageId, :createdAt
WHERE NOT EXISTS (SELECT 1 FROM CAMEL_MESSAGEPROCESSED WITH (UPDLOCK, HOLDLOCK)
                  WHERE processorName = :processorName AND messageId = :messageId)
