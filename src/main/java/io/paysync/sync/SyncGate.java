package io.paysync.sync;

import org.apache.camel.CamelContext;
import org.apache.camel.component.resilience4j.ResilienceProcessor;

/** Claiming pauses while the third party's circuit breaker is open: claimed orders could not be sent anyway. */
public class SyncGate {

    private final CamelContext context;

    public SyncGate(CamelContext context) {
        this.context = context;
    }

    public boolean mayClaim() {
        return !"OPEN".equals(breakerState());
    }

    /** CLOSED, OPEN, HALF_OPEN, or UNKNOWN before the route is running. */
    public String breakerState() {
        ResilienceProcessor breaker = context.getProcessor(SyncRoutes.BREAKER_ID, ResilienceProcessor.class);
        return breaker == null ? "UNKNOWN" : breaker.getCircuitBreakerState();
    }
}
