package io.paysync.order;

/**
 * The payment's state machine (docs/contract.md): Pending -> Paid, Failed, Expired, or Cancelled (the shop's decision,
 * taken by its backend or an operator); those four are final.
 */
public enum PaymentStatus {
    Pending,
    Paid,
    Failed,
    Expired,
    Cancelled;

    public boolean isFinal() {
        return this != Pending;
    }
}
