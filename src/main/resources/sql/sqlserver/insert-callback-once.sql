-- An authentic callback, unless a row of the same webhook-id already holds the same answer: a replay within the
-- timestamp window is then only counted, so resending one signed request cannot grow the table.
INSERT INTO callbacks (received_at, webhook_id, order_number, content_type, signature, http_status, outcome,
                       body_size, body_sha256, body)
SELECT :receivedAt, :webhookId, :orderNumber, :contentType, :signature, :httpStatus, :outcome, :bodySize,
       :bodySha256, :body
WHERE NOT EXISTS (SELECT 1 FROM callbacks
                  WHERE webhook_id = :webhookId AND signature = N'valid' AND http_status = :httpStatus
                    AND outcome = :outcome)
