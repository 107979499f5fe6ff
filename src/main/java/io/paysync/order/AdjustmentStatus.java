package io.paysync.order;

/**
 * An adjustment's state machine (docs/contract.md): Pending (reported, not final: a refund still processing) -> Final
 * (it happened) or Void (it failed or was cancelled at the gateway); Final and Void are final. Pending and Final count
 * towards the order's adjusted total, Void does not.
 */
public enum AdjustmentStatus {
    Pending,
    Final,
    Void;

    public boolean isFinal() {
        return this != Pending;
    }
}
