package io.paysync.sync;

import java.util.List;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The send "pool" when {@code paysync.sync.concurrency} is 1: every task runs on the thread that submits it, so a
 * claimed batch is sent one order after another on the timer's own thread, with no queue that one stuck call could
 * hold the next batch behind.
 */
public final class CallerRunsExecutor extends AbstractExecutorService {

    private volatile boolean shutdown;

    @Override
    public void execute(Runnable command) {
        command.run();
    }

    @Override
    public void shutdown() {
        shutdown = true;
    }

    @Override
    public List<Runnable> shutdownNow() {
        shutdown = true;
        return List.of();
    }

    @Override
    public boolean isShutdown() {
        return shutdown;
    }

    @Override
    public boolean isTerminated() {
        return shutdown;
    }

    @Override
    public boolean awaitTermination(long timeout, TimeUnit unit) {
        return true;
    }

    /** The executor that sends a claimed batch: a pool of {@code concurrency} threads, or the caller for 1. */
    public static java.util.concurrent.ExecutorService forConcurrency(org.apache.camel.CamelContext context,
            Object source, int concurrency) {
        return concurrency <= 1 ? new CallerRunsExecutor()
                : context.getExecutorServiceManager().newFixedThreadPool(source, "paysync-sync-send", concurrency);
    }
}
