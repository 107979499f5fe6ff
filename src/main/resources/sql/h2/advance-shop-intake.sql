-- A round's end: the new mark, fenced, so a round whose lease another instance took over moves nothing.
UPDATE shop_intakes
SET high_key = :highKey,
    rows_taken = rows_taken + :taken,
    updated_at = :now
WHERE source = :source
  AND fence = :fence
  AND owner = :owner
