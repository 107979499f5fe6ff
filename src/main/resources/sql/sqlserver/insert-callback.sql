-- One request to the callback endpoint, whatever its answer (an audit log; never a signature or a secret).
INSERT INTO callbacks (received_at, webhook_id, order_number, content_type, signature, http_status, outcome,
                       body_size, body)
VALUES (:receivedAt, :webhookId, :orderNumber, :contentType, :signature, :httpStatus, :outcome, :bodySize, :body)
