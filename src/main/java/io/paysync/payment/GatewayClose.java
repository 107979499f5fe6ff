package io.paysync.payment;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.paysync.http.Json;
import org.apache.camel.Exchange;
import org.apache.camel.Message;
import org.apache.camel.component.http.HttpMethods;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The close request of {@code src/main/resources/paysync/routes/gateway-close.camel.yaml}, the close route for the gateway status API
 * reconciliation asks ({@link PaymentReconciliation}): {@code POST {status-url}/payments/close} with
 * {@code {"orderNumber": n}}, then the status question through {@code direct:gateway-status} ({@link GatewayStatus}),
 * whose answer the route ends with; no body when the gateway did not take the close: then the order stays Pending.
 */
public class GatewayClose {

    private static final Logger LOG = LoggerFactory.getLogger(GatewayClose.class);

    /** The close request: only the order number goes out, none of the caller's headers. */
    public void closeRequest(Exchange exchange) {
        Message m = exchange.getMessage();
        String orderNumber = m.getHeader("orderNumber", String.class);
        exchange.setProperty("orderNumber", orderNumber);
        ObjectNode body = Json.MAPPER.createObjectNode().put("orderNumber", orderNumber);
        m.removeHeaders("*");
        m.setHeader(Exchange.HTTP_METHOD, HttpMethods.POST);
        m.setHeader(Exchange.CONTENT_TYPE, "application/json");
        m.setHeader("Accept", "application/json");
        m.setBody(Json.write(body));
    }

    /**
     * Whether the gateway took the close: a 2xx (closed, or already final there) or 404 (it never had that order).
     */
    public boolean closeTaken(Exchange exchange) {
        Integer status = exchange.getMessage().getHeader(Exchange.HTTP_RESPONSE_CODE, Integer.class);
        return status != null && (status == 404 || (status >= 200 && status < 300));
    }

    /** The close was not taken: no answer, the order stays Pending. */
    public void closeNotTaken(Exchange exchange) {
        LOG.warn(
                "Order {}: the gateway answered the close with HTTP {}; it stays Pending",
                exchange.getProperty("orderNumber"),
                exchange.getMessage().getHeader(Exchange.HTTP_RESPONSE_CODE));
        exchange.getMessage().setBody(null);
    }
}
