-- The newest :limit callbacks that named this order, newest first (the caller shows them oldest first).
SELECT TOP (:limit) id, received_at, webhook_id, content_type, signature, http_status, outcome, body_size,
       body_sha256, body
FROM callbacks
WHERE order_number = :orderNumber
ORDER BY id DESC
