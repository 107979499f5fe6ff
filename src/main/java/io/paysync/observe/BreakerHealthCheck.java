package io.paysync.observe;

import java.util.Map;
import java.util.function.Supplier;
import org.apache.camel.component.resilience4j.ResilienceProcessor;
import org.apache.camel.health.HealthCheckResultBuilder;
import org.apache.camel.impl.health.AbstractHealthCheck;

/**
 * The third party's circuit breaker, as a readiness check with its state in the details. Callbacks do not need the
 * third party, so by default an open breaker is reported but keeps the instance in service (UP);
 * {@code paysync.health.breaker-down-when-open=true} makes it DOWN. Never a liveness check: restarting an instance
 * does not bring the third party back, and a restart loop would drop callbacks too.
 */
public class BreakerHealthCheck extends AbstractHealthCheck {

    private final String breakerId;
    private final Supplier<String> state;
    private final Supplier<ResilienceProcessor> breaker;
    private final boolean downWhenOpen;

    /**
     * @param state   the state the sync worker gates on (CLOSED, OPEN, HALF_OPEN, ..., UNKNOWN before the route runs)
     * @param breaker the breaker step, for its figures (may give null)
     */
    public BreakerHealthCheck(
            String breakerId, Supplier<String> state, Supplier<ResilienceProcessor> breaker, boolean downWhenOpen) {
        super("paysync", "third-party-breaker");
        this.breakerId = breakerId;
        this.state = state;
        this.breaker = breaker;
        this.downWhenOpen = downWhenOpen;
    }

    @Override
    public boolean isLiveness() {
        return false;
    }

    @Override
    protected void doCall(HealthCheckResultBuilder builder, Map<String, Object> options) {
        String current = state.get();
        builder.detail("breaker", breakerId);
        builder.detail("state", current);
        builder.detail("down.when.open", downWhenOpen);
        ResilienceProcessor figures = breaker.get();
        if (figures != null) {
            // -1 until minimumNumberOfCalls calls were made
            builder.detail("failure.rate.percent", figures.getFailureRate());
            builder.detail("buffered.calls", figures.getNumberOfBufferedCalls());
            builder.detail("failed.calls", figures.getNumberOfFailedCalls());
            builder.detail("not.permitted.calls", figures.getNumberOfNotPermittedCalls());
        }
        boolean open = "OPEN".equals(current) || "FORCED_OPEN".equals(current);
        if (open) {
            builder.message("The third party's circuit breaker is " + current + ": orders are not being sent; "
                    + "callbacks are still taken");
        }
        if (open && downWhenOpen) {
            builder.down();
        } else {
            builder.up();
        }
    }
}
