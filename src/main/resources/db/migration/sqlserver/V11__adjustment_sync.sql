-- The adjustments' sync, claimed and sent as an order's is (docs/contract.md, "Adjustments"): the columns an
-- order's claim, dead letter and takeover write, and the claim's index.
ALTER TABLE adjustments ADD taken_over_claim NVARCHAR(64) NULL;
ALTER TABLE adjustments ADD sync_failure_fingerprint NVARCHAR(64) NULL;
ALTER TABLE adjustments ADD dead_lettered_at DATETIMEOFFSET(6) NULL;
-- What an operator wrote when they handled one by hand (Manual or a dead letter resolved).
ALTER TABLE adjustments ADD resolved_by NVARCHAR(300) NULL;
GO

-- The claim seeks the claimable adjustments oldest first and stops after its batch (filtered index: only rows
-- that can still be claimed).
CREATE NONCLUSTERED INDEX ix_adjustments_sync_claimable ON adjustments (id)
    WHERE sync_status IN (N'Pending', N'Processing');

-- An adjustment's sync goes into its order's history, as machine 'adjustment-sync'.
ALTER TABLE order_transitions DROP CONSTRAINT ck_order_transitions_machine;
ALTER TABLE order_transitions ADD CONSTRAINT ck_order_transitions_machine
    CHECK (machine IN (N'payment', N'sync', N'adjustment', N'adjustment-sync'));
GO
