-- The adjustments' sync, claimed and sent as an order's is (docs/contract.md, "Adjustments"): the columns an
-- order's claim, dead letter and takeover write, and the claim's index.
ALTER TABLE adjustments ADD COLUMN taken_over_claim VARCHAR(64);
ALTER TABLE adjustments ADD COLUMN sync_failure_fingerprint VARCHAR(64);
ALTER TABLE adjustments ADD COLUMN dead_lettered_at TIMESTAMP WITH TIME ZONE;
-- What an operator wrote when they handled one by hand (Manual or a dead letter resolved).
ALTER TABLE adjustments ADD COLUMN resolved_by VARCHAR(300);

-- The claim reads the claimable adjustments oldest first and stops after its batch; the synced ones, nearly all
-- of the table once it has run a while, are not in this index.
CREATE INDEX ix_adjustments_sync_claimable ON adjustments (id)
    WHERE sync_status IN ('Pending', 'Processing');

-- An adjustment's sync goes into its order's history, as machine 'adjustment-sync'.
ALTER TABLE order_transitions DROP CONSTRAINT ck_order_transitions_machine;
ALTER TABLE order_transitions ADD CONSTRAINT ck_order_transitions_machine
    CHECK (machine IN ('payment', 'sync', 'adjustment', 'adjustment-sync'));
