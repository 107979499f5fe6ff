package io.paysync.sync;

/** What the sync worker tells the metrics; {@link #NONE} until {@link BusinessMetrics} is bound. */
public interface SyncObserver {

    SyncObserver NONE = new SyncObserver() {};

    /** A claim round returned this many orders (0 included: the worker is idle). */
    default void claimed(int batchSize) {}

    /** One try at the third party ended so. */
    default void called(CallOutcome outcome) {}
}
