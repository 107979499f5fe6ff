-- Retention: the declaration ends with its transaction (SET LOCAL); a statement that changes nothing keeps the
-- files alike.
SELECT 1
