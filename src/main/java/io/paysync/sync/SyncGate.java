package io.paysync.sync;

import java.util.function.BooleanSupplier;
import org.apache.camel.CamelContext;
import org.apache.camel.component.resilience4j.ResilienceProcessor;

/**
 * Claiming pauses while the third party's circuit breaker is open: claimed orders could not be sent anyway. The
 * adjustments' calls go through a breaker of their own; their claims pause while either breaker is open (it is the
 * same third party), and whenever no adjustment is sent at all.
 */
public class SyncGate {

    private final CamelContext context;
    private final SyncTarget target;
    private final BooleanSupplier sending;

    public SyncGate(CamelContext context) {
        this(context, SyncTarget.ORDERS, () -> true);
    }

    public SyncGate(CamelContext context, SyncTarget target, BooleanSupplier sending) {
        this.context = context;
        this.target = target;
        this.sending = sending;
    }

    public boolean mayClaim() {
        return sending.getAsBoolean()
                && !"OPEN".equals(breakerState())
                && (!target.adjustments() || !"OPEN".equals(state(SyncRoutes.BREAKER_ID)));
    }

    /** CLOSED, OPEN, HALF_OPEN, or UNKNOWN before the route is running. */
    public String breakerState() {
        return state(target.breakerId());
    }

    private String state(String breakerId) {
        ResilienceProcessor breaker = context.getProcessor(breakerId, ResilienceProcessor.class);
        return breaker == null ? "UNKNOWN" : breaker.getCircuitBreakerState();
    }
}
