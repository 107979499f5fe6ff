package io.paysync.sync;

import org.apache.camel.component.http.HttpClientConfigurer;
import org.apache.hc.client5.http.impl.classic.HttpClientBuilder;

/**
 * Apache HttpClient retries 429 and 503 answers by itself, even for a POST, and waits out their Retry-After. Every
 * call to the third party must be one attempt that Paysync counts, backs off and records, so that is switched off.
 */
public class NoHiddenRetries implements HttpClientConfigurer {

    @Override
    public void configureHttpClient(HttpClientBuilder builder) {
        builder.disableAutomaticRetries();
    }
}
