-- The outbox's backlog: how many conclusions the shop's table has not learnt yet, and since when.
SELECT COUNT(*) AS waiting, MIN(created_at) AS oldest FROM shop_writebacks
