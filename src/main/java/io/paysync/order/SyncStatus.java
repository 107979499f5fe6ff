package io.paysync.order;

/**
 * The order's record at the third party (docs/contract.md): Pending -> Processing (claimed) -> Completed, or back to
 * Pending after a retryable failure; Failed is a dead letter an operator retries or resolves.
 */
public enum SyncStatus {
    Pending,
    Processing,
    Completed,
    Failed
}
