-- A new adjustment, in the transaction of its order's guarded total (adjust-order-total.sql). The unique gateway_id
-- refuses a second row for the same gateway id: the caller then reads the first and decides (a duplicate or a
-- conflict). A Final adjustment's sync is Pending from here on; nothing claims it yet.
INSERT INTO adjustments (gateway_id, order_number, kind, amount, currency, reverses, status, cause, created_at,
                         final_at)
VALUES (:gatewayId, :orderNumber, :kind, :amount, :currency, :reverses, :status, :cause, :now, :finalAt)
