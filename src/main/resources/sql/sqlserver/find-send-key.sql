-- When the send that may have created a record started: the time its idempotency key was written.
SELECT createdAt FROM CAMEL_MESSAGEPROCESSED WHERE processorName = :processorName AND messageId = :messageId
