package io.paysync.payment;

import io.paysync.http.Json;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import org.apache.camel.Exchange;
import org.apache.camel.Message;
import org.apache.camel.component.http.HttpMethods;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The request and answer of the generic status route, {@code direct:gateway-status} in
 * {@code src/main/resources/paysync/routes/gateway-close.camel.yaml}: {@code GET {status-url}/payments?orderNumber=<n>}. Reconciliation asks
 * through it unless an adapter's status route is set, and the generic close route asks through it after closing.
 *
 * <p>
 * Every status route ends the same way, so whoever asks reads one shape: a JSON body
 * {@code {"orderNumber", "status", "transactionId", "amount", "currency"}} with status {@code succeeded},
 * {@code failed}, {@code pending}, {@code closed} or {@code unknown} (the gateway never had a payment for the order),
 * or no body when the gateway's answer is an error; no answer at all is an exception.
 */
public class GatewayStatus {

    private static final Logger LOG = LoggerFactory.getLogger(GatewayStatus.class);

    /** GET with the order number of the header {@code orderNumber} encoded, none of the caller's headers sent. */
    public void request(Exchange exchange) {
        Message m = exchange.getMessage();
        String orderNumber = m.getHeader("orderNumber", String.class);
        exchange.setProperty("orderNumber", orderNumber);
        m.removeHeaders("*");
        m.setHeader(Exchange.HTTP_METHOD, HttpMethods.GET);
        m.setHeader(Exchange.HTTP_QUERY, "orderNumber=" + URLEncoder.encode(orderNumber, StandardCharsets.UTF_8));
        m.setHeader("Accept", "application/json");
        m.setBody(null);
    }

    /** The answer in the status routes' shape: as the gateway gave it, {@code unknown} for a 404, or none. */
    public void answer(Exchange exchange) {
        Message m = exchange.getMessage();
        Integer status = m.getHeader(Exchange.HTTP_RESPONSE_CODE, Integer.class);
        String orderNumber = exchange.getProperty("orderNumber", String.class);
        if (status != null && status == 404) {
            m.setBody(Json.write(Json.MAPPER
                    .createObjectNode()
                    .put("orderNumber", orderNumber)
                    .put("status", "unknown")));
        } else if (status == null || status != 200) {
            LOG.warn("Order {}: the gateway status API answered HTTP {}", orderNumber, status);
            m.setBody(null);
        } else {
            m.setBody(m.getBody(byte[].class));
        }
        m.removeHeaders("*");
        m.setHeader("orderNumber", orderNumber);
    }
}
