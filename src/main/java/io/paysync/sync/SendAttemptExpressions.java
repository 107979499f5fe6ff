package io.paysync.sync;

import org.apache.camel.Exchange;
import org.apache.camel.Expression;
import org.apache.camel.Predicate;
import org.apache.camel.support.ExpressionAdapter;

/**
 * What the sync routes ask of the {@link SendAttempt} in their body, as the beans their {@code ref:} expressions name:
 * read directly, where a {@code ${body.orderNumber}} would go through Camel's reflective OGNL on every order, a cost
 * the sync's hot path would pay for each.
 */
public final class SendAttemptExpressions {

    /** {@code sendKeyOfAttempt}: the idempotent consumer's key, the order number or the adjustment's gateway id. */
    public static final Expression SEND_KEY = new ExpressionAdapter() {
        @Override
        public Object evaluate(Exchange exchange) {
            return attempt(exchange).getSendKey();
        }
    };

    /** {@code callNeeded}: the third party is to be called (not given up). */
    public static final Predicate CALL_NEEDED = exchange -> attempt(exchange).isCallNeeded();

    /** {@code lookUpFirst}: the call is a lookup of an in-doubt send, not a create. */
    public static final Predicate LOOK_UP_FIRST = exchange -> attempt(exchange).isLookup();

    private SendAttemptExpressions() {}

    private static SendAttempt attempt(Exchange exchange) {
        Object body = exchange.getMessage().getBody();
        if (body instanceof SendAttempt attempt) {
            return attempt;
        }
        throw new IllegalStateException("a sync route step expects a SendAttempt as the body, got "
                + (body == null ? "none" : body.getClass().getName()));
    }
}
