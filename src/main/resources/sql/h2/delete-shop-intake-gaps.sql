-- A round's end replaces the intake's gaps, inside the fenced update's transaction.
DELETE FROM shop_intake_gaps WHERE source = :source
