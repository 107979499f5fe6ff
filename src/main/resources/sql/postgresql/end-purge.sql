-- Retention: the declaration above ends with its transaction; a statement that changes nothing keeps the files alike.
SELECT 1
