package io.paysync.order;

/** The payment's state machine (docs/contract.md): Pending -> Paid, Failed or Expired; those three are final. */
public enum PaymentStatus {
    Pending,
    Paid,
    Failed,
    Expired;

    public boolean isFinal() {
        return this != Pending;
    }
}
