-- An intake's mark and lease, read before its guarded claim.
SELECT high_key, fence, owner, lease_until, rows_taken FROM shop_intakes WHERE source = :source
