package io.paysync.order;

/** CONTRACT §1: the order's record at the third party. */
public enum SyncStatus {
    Pending, Processing, Completed, Failed
}
