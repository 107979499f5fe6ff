package io.paysync.observe;

import java.util.Map;
import java.util.function.Supplier;

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
    private final boolean downWhenOpen;

    public BreakerHealthCheck(String breakerId, Supplier<String> state, boolean downWhenOpen) {
        super("paysync", "third-party-breaker");
        this.breakerId = breakerId;
        this.state = state;
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
