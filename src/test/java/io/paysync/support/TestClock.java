package io.paysync.support;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A clock that stands still until a test moves it. Bound as {@code paysyncClock} (see
 * {@link PaysyncInstance#start(TestDatabase, java.util.Map, java.util.Map)}), it lets a test expire leases, backoffs,
 * payment windows and signature timestamps without sleeping.
 */
public final class TestClock extends Clock {

    private final AtomicReference<Instant> now;

    public TestClock(Instant start) {
        this.now = new AtomicReference<>(start);
    }

    public void advance(Duration by) {
        if (by.isNegative()) {
            throw new IllegalArgumentException("Time only moves forward: " + by);
        }
        now.updateAndGet(t -> t.plus(by));
    }

    @Override
    public Instant instant() {
        return now.get();
    }

    @Override
    public ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
        if (!ZoneOffset.UTC.equals(zone)) {
            throw new UnsupportedOperationException("A test clock is UTC");
        }
        return this;
    }
}
