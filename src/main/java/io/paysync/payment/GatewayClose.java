package io.paysync.payment;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.paysync.http.Json;
import org.apache.camel.Exchange;
import org.apache.camel.Message;
import org.apache.camel.component.http.HttpMethods;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The requests and answers of {@code routes/gateway-close.camel.yaml}, the close route for the gateway status API
 * reconciliation asks ({@link PaymentReconciliation}): {@code POST {status-url}/payments/close} with
 * {@code {"orderNumber": n}}, then the status question. The route ends with the status API's answer, or
 * {@code {"orderNumber", "status": "unknown"}} for an order the gateway has no payment for, or no body when the
 * gateway did not take the close or its status answer is an error: then the order stays Pending.
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

    /** The status question, as reconciliation asks it. */
    public void statusRequest(Exchange exchange) {
        PaymentReconciliation.askStatus(exchange.getMessage(), exchange.getProperty("orderNumber", String.class));
    }

    /** The status answer in the close route's shape: as the gateway gave it, {@code unknown} for a 404, or none. */
    public void statusAnswer(Exchange exchange) {
        Message m = exchange.getMessage();
        Integer status = m.getHeader(Exchange.HTTP_RESPONSE_CODE, Integer.class);
        String orderNumber = exchange.getProperty("orderNumber", String.class);
        if (status != null && status == 404) {
            m.setBody(Json.write(Json.MAPPER
                    .createObjectNode()
                    .put("orderNumber", orderNumber)
                    .put("status", "unknown")));
        } else if (status == null || status != 200) {
            LOG.warn("Order {}: the gateway status API answered HTTP {} after the close", orderNumber, status);
            m.setBody(null);
        } else {
            m.setBody(m.getBody(byte[].class));
        }
        m.removeHeaders("*");
        m.setHeader("orderNumber", orderNumber);
    }
}
