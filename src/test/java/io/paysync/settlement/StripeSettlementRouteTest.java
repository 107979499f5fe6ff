package io.paysync.settlement;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.stream.Stream;
import org.apache.camel.CamelConfiguration;
import org.apache.camel.CamelContext;
import org.apache.camel.spi.PropertiesComponent;
import org.apache.camel.test.main.junit5.CamelMainTest;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * routes/adapters/stripe-settlement.camel.yaml alone, with Camel's test kit and real folders: a Stripe report dropped
 * in its inbox becomes one canonical settlement file with its charges, refunds and disputes only. No database and no settlement route: the
 * file stays in the settlement inbox for the test to read (what applying it does: {@link StripeSettlementAdapterTest}).
 */
@CamelMainTest(
        configurationClasses = StripeSettlementRouteTest.Folders.class,
        properties = {
            "camel.main.routesIncludePattern=file:routes/adapters/stripe-settlement.camel.yaml",
            "paysync.adapters.stripe-settlement.enabled=true",
            "paysync.adapters.stripe-settlement.poll-ms=50",
            "paysync.adapters.stripe-settlement.stable-ms=50",
            "camel.server.enabled=false",
            "camel.management.enabled=false",
            "camel.metrics.enabled=false"
        })
class StripeSettlementRouteTest {

    static final String ROOT = "target/stripe-settlement-route-test";
    static final String REPORTS = ROOT + "/reports";
    static final String SETTLEMENT = ROOT + "/settlement";

    /** The folders as absolute paths, as the runtime hands them to the route (SettlementAdapters). */
    public static class Folders implements CamelConfiguration {
        @Override
        public void configure(CamelContext context) {
            PropertiesComponent properties = context.getPropertiesComponent();
            properties.addOverrideProperty(
                    "paysync.adapters.stripe-settlement.inbox",
                    Path.of(REPORTS).toAbsolutePath().toString());
            properties.addOverrideProperty(
                    "paysync.settlement.inbox",
                    Path.of(SETTLEMENT).toAbsolutePath().toString());
        }
    }

    @BeforeAll
    static void emptyFolders() throws IOException {
        Path root = Path.of(ROOT);
        if (Files.exists(root)) {
            try (Stream<Path> files = Files.walk(root)) {
                files.sorted((a, b) -> b.getNameCount() - a.getNameCount())
                        .forEach(p -> p.toFile().delete());
            }
        }
        Files.createDirectories(Path.of(REPORTS));
        Files.createDirectories(Path.of(SETTLEMENT));
    }

    /** As the Dashboard's download lands: written aside, then renamed into the folder. */
    static void drop(String name, String resource) throws IOException {
        Path part = Path.of(REPORTS, "." + name + ".part");
        try (InputStream in = StripeSettlementRouteTest.class.getResourceAsStream("/stripe/" + resource)) {
            assertThat(in).as(resource).isNotNull();
            Files.copy(in, part, StandardCopyOption.REPLACE_EXISTING);
        }
        Files.move(part, Path.of(REPORTS, name), StandardCopyOption.ATOMIC_MOVE);
    }

    @Test
    void should_write_the_charges_and_refunds_of_a_report_as_a_canonical_settlement_file() throws Exception {
        drop("may.csv", "itemized_balance_change_from_activity.csv");

        Path canonical = Path.of(SETTLEMENT, "stripe-may.csv");
        await().atMost(Duration.ofSeconds(30)).until(() -> Files.exists(Path.of(REPORTS, ".done", "may.csv")));

        assertThat(Files.readAllLines(canonical))
                .containsExactly(
                        "order_number,transaction_id,amount,currency,status,settled_at,kind,reverses,"
                                + "balance_transaction_id",
                        "SP-PENDING,pi_3PbA1cLkdIwHu7ix0pending,25.00,EUR,succeeded,2026-05-04T08:12:31Z,payment,,"
                                + "txn_3PbA1cLkdIwHu7ix0a1b2c3d",
                        "SP-WEBHOOK,pi_3PbB2dLkdIwHu7ix1webhook,40.00,EUR,succeeded,2026-05-04T09:40:02Z,payment,,"
                                + "txn_3PbB2dLkdIwHu7ix1e2f3g4h",
                        "SP-WEBHOOK,re_3PbB2dLkdIwHu7ix1q2r3s4t,40.00,EUR,succeeded,2026-05-05T14:03:55Z,refund,,"
                                + "txn_3PbC3eLkdIwHu7ix2i3j4k5l");
        try (Stream<Path> left = Files.list(Path.of(SETTLEMENT))) {
            assertThat(left.map(p -> p.getFileName().toString()))
                    .as("no part file left behind")
                    .containsExactly("stripe-may.csv");
        }
    }

    @Test
    void should_refuse_a_report_without_the_order_number_column_and_write_nothing() throws Exception {
        drop("no-metadata.csv", "stripe_report_without_metadata.csv");

        Path reason = Path.of(REPORTS, ".failed", "no-metadata.csv.error.txt");
        // The report moves to .failed/ once its exchange has ended, clean-up included; the note is written before.
        await().atMost(Duration.ofSeconds(30))
                .until(() -> Files.exists(reason) && Files.exists(Path.of(REPORTS, ".failed", "no-metadata.csv")));

        assertThat(Files.readString(reason)).contains("payment_metadata[order_number]");
        try (Stream<Path> left = Files.list(Path.of(SETTLEMENT))) {
            assertThat(left.map(p -> p.getFileName().toString()))
                    .as("neither the file nor a part of it")
                    .noneMatch(n -> n.contains("no-metadata"));
        }
    }
}
