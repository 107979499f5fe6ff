-- An intake's row, created at its first round with the mark the settings start from; nothing if it exists.
INSERT INTO shop_intakes (source, high_key, fence, rows_taken, updated_at)
SELECT :source, :highKey, 0, 0, :now
WHERE NOT EXISTS (SELECT 1 FROM shop_intakes WHERE source = :source)
