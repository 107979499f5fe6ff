-- One range of keys not yet seen, with the time it was first missed (its grace runs from then).
INSERT INTO shop_intake_gaps (source, gap_from, gap_to, first_seen) VALUES (:source, :gapFrom, :gapTo, :firstSeen)
