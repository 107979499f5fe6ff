-- The key ranges an intake passed before their rows were visible, read again every round.
SELECT gap_from, gap_to, first_seen FROM shop_intake_gaps WHERE source = :source ORDER BY gap_from
