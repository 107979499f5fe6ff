-- Delivered: the outbox row goes, fenced by the claim that delivered it.
DELETE FROM shop_writebacks WHERE id = :id AND claim_token = :claimToken
