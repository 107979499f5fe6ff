-- One row of the append-only history, written in the same transaction as the transition it records: the
-- free-text cause and detail, and the cause's parts in their own columns (who, which callback, claim, worker,
-- error and its fingerprint).
INSERT INTO order_transitions (order_number, machine, from_status, to_status, cause, detail, occurred_at,
                               actor, webhook_id, claim_token, worker_id, error, fingerprint)
VALUES (:orderNumber, :machine, :fromStatus, :toStatus, :cause, :detail, :now,
        :actor, :webhookId, :claimToken, :workerId, :error, :fingerprint)
