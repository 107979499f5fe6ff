package io.paysync.order;

/** CONTRACT §1. Paid, Failed and Expired are final. */
public enum PaymentStatus {
    Pending, Paid, Failed, Expired;

    public boolean isFinal() {
        return this != Pending;
    }
}
