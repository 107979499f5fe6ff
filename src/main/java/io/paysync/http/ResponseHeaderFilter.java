package io.paysync.http;

import org.apache.camel.http.base.HttpHeaderFilterStrategy;

/**
 * Camel's HTTP header filter, except that {@code Cache-Control} set by a route reaches the client: the default drops
 * it, so order data and operator answers were sent without {@code no-store}. Set on the platform-http component in
 * {@code application.properties}.
 */
public class ResponseHeaderFilter extends HttpHeaderFilterStrategy {

    public ResponseHeaderFilter() {
        getOutFilter().remove("cache-control");
    }
}
