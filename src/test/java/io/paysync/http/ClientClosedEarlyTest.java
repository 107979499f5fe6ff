package io.paysync.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.paysync.support.LogHygiene;
import io.paysync.support.PaysyncInstance;
import io.paysync.support.TestDatabase;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.apache.camel.component.platform.http.vertx.VertxPlatformHttpRouter;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A client that goes away before it is answered (a body cut short, a timeout on its side) is nothing an operator
 * must act on: it leaves no ERROR in the log. A handler that fails still does.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ClientClosedEarlyTest {

    @RegisterExtension
    static final LogHygiene LOG = new LogHygiene();

    private PaysyncInstance app;

    @BeforeAll
    void start() throws Exception {
        app = PaysyncInstance.start(TestDatabase.h2());
    }

    @AfterAll
    void stop() throws Exception {
        app.close();
    }

    @Test
    void should_log_no_error_for_clients_that_close_their_connection_before_their_body_is_complete() throws Exception {
        int mark = LOG.captured().length();
        for (String path : List.of("/api/payments/callback", "/api/orders", "/observe/jolokia")) {
            URI base = URI.create(app.baseUrl());
            try (Socket socket = new Socket(base.getHost(), base.getPort())) {
                OutputStream out = socket.getOutputStream();
                out.write(("POST " + path + " HTTP/1.1\r\nHost: paysync\r\nContent-Type: application/json\r\n"
                                + "Content-Length: 1000\r\n\r\n{\"amount\"")
                        .getBytes(StandardCharsets.US_ASCII));
                out.flush();
            }
        }

        Awaitility.await()
                .atMost(Duration.ofSeconds(20))
                .untilAsserted(() -> assertThat(LOG.captured()
                                .substring(mark)
                                .lines()
                                .filter(l -> l.contains("closed its connection before it was answered"))
                                .distinct())
                        .as("the runtime saw each client go: %s", LOG.captured().substring(mark))
                        .hasSize(3));
        assertThat(LOG.captured().substring(mark).lines().filter(l -> l.startsWith("ERROR")))
                .as("no ERROR for a client that went away")
                .isEmpty();
        assertThat(app.createOrder("CLOSED-EARLY-1", "1.00", "EUR").status())
                .as("and the server answers the next client")
                .isEqualTo(201);
    }

    @Test
    void should_still_log_an_error_when_a_handler_fails() throws Exception {
        VertxPlatformHttpRouter router = app.camelContext()
                .getRegistry()
                .findByType(VertxPlatformHttpRouter.class)
                .iterator()
                .next();
        router.route("/test/failing-handler").handler(ctx -> {
            throw new IllegalStateException("a failure of the runtime's own");
        });

        assertThat(app.get("/test/failing-handler").status()).isEqualTo(500);

        Awaitility.await()
                .atMost(Duration.ofSeconds(10))
                .untilAsserted(() -> assertThat(LOG.captured())
                        .contains("ERROR io.vertx.ext.web.RoutingContext - Unhandled exception in router")
                        .contains("a failure of the runtime's own"));
    }
}
