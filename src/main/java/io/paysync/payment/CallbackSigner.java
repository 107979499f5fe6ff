package io.paysync.payment;

import com.standardwebhooks.Webhook;
import com.standardwebhooks.exceptions.WebhookSigningException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Properties;
import java.util.UUID;

/**
 * {@code java -jar paysync.jar sign '<json body>'}: prints the three Standard Webhooks headers for the body, one per
 * line, ready for {@code curl -H @file}. The secret is {@code PAYSYNC_GATEWAY_WEBHOOK_SECRET} (its first entry) or
 * the dev profile's. A tool for trying the callback by hand; gateways sign their own calls.
 */
public final class CallbackSigner {

    private CallbackSigner() {}

    public static int run(String[] args) throws IOException, WebhookSigningException {
        if (args.length != 2) {
            System.err.println("usage: java -jar paysync.jar sign '<json body>'   (use - to read the body from stdin)");
            return 2;
        }
        String body = "-".equals(args[1]) ? new String(System.in.readAllBytes(), StandardCharsets.UTF_8) : args[1];
        String secret = System.getenv("PAYSYNC_GATEWAY_WEBHOOK_SECRET");
        if (secret == null || secret.isBlank()) {
            secret = System.getProperty("paysync.gateway.webhook-secret", devSecret());
        }
        String first = secret.trim().split("[\\s,]+")[0];
        String id = "msg_" + UUID.randomUUID().toString().replace("-", "");
        long timestamp = Instant.now().getEpochSecond();
        System.out.println("webhook-id: " + id);
        System.out.println("webhook-timestamp: " + timestamp);
        System.out.println("webhook-signature: " + new Webhook(first).sign(id, timestamp, body));
        return 0;
    }

    private static String devSecret() throws IOException {
        try (InputStream in = CallbackSigner.class.getResourceAsStream("/application-dev.properties")) {
            Properties p = new Properties();
            if (in != null) {
                p.load(in);
            }
            return p.getProperty("paysync.gateway.webhook-secret", "");
        }
    }
}
