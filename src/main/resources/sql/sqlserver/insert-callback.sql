-- One request to the callback endpoint, whatever its answer (an audit log; never a signature or a secret).
INSERT INTO callbacks (received_at, webhook_id, order_number, content_type, signature, http_status, outcome,
                       body_size, body_sha256, body)
VALUES (:receivedAt, :webhookId, :orderNumber, :contentType, :signature, :httpStatus, :outcome, :bodySize,
        :bodySha256, :body)
