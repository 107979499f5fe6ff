package io.paysync.shop;

import com.zaxxer.hikari.HikariDataSource;
import io.micrometer.core.instrument.MeterRegistry;
import io.paysync.config.InvalidSettingsException;
import io.paysync.config.Settings;
import io.paysync.db.Database;
import io.paysync.db.WriteBack;
import io.paysync.order.OrderRepository;
import io.paysync.payment.PaymentRules;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;
import org.apache.camel.CamelContext;
import org.apache.camel.support.service.ServiceSupport;

/**
 * Paysync beside a shop's own orders table (docs/adopting.md): the shop's data source, the intake and the
 * write-back, from the {@code paysync.shop.*} settings.
 */
public final class ShopAdoption {

    public static final String DB_URL = "paysync.shop.db.url";
    public static final String DB_USERNAME = "paysync.shop.db.username";
    public static final String DB_PASSWORD = "paysync.shop.db.password";
    public static final String SQL_DIR = "paysync.shop.sql-dir";
    public static final String INTAKE_ENABLED = "paysync.shop.intake.enabled";
    public static final String WRITEBACK_ENABLED = "paysync.shop.writeback.enabled";
    public static final String WRITEBACK_CONCLUSIONS = "paysync.shop.writeback.conclusions";
    public static final String LEGACY_PAYMENTS = "paysync.shop.legacy-payments";

    private ShopAdoption() {}

    /**
     * Binds {@code shopDataSource} (a pool of its own when {@code paysync.shop.db.url} is set, else Paysync's),
     * {@code shopIntake} and {@code shopWriteBack}, and turns the outbox on for the conclusions written back. A setting
     * out of range, or an SQL file missing for what is enabled, refuses the start naming it.
     */
    public static void configure(
            Settings settings,
            CamelContext context,
            Database database,
            OrderRepository orders,
            PaymentRules rules,
            Clock clock,
            String owner,
            MeterRegistry metrics)
            throws Exception {
        boolean intake = settings.getBoolean(INTAKE_ENABLED, false);
        boolean writeBack = settings.getBoolean(WRITEBACK_ENABLED, false);
        settings.routeInt("paysync.shop.intake.period-ms", 5000, 10, 86_400_000);
        settings.routeInt("paysync.shop.writeback.period-ms", 1000, 10, 86_400_000);
        settings.routeInt("paysync.shop.watch.period-ms", 5000, 10, 86_400_000);
        WriteBack conclusions = WriteBack.parse(settings.getOrDefault(
                WRITEBACK_CONCLUSIONS,
                String.join(",", List.of("Paid", "Completed", "Failed", "Expired", "Cancelled"))));
        if (conclusions == null) {
            throw new InvalidSettingsException(List.of(WRITEBACK_CONCLUSIONS
                    + " must list some of Paid, Completed, Failed, Expired, Cancelled, separated by commas"));
        }
        checkSqlFiles(settings, database, intake, writeBack);
        int parallelism = settings.getInt("paysync.shop.intake.parallelism", 2, 1, 16);
        DataSource shop = database.dataSource();
        if (settings.get(DB_URL).isPresent()) {
            HikariDataSource ds = new HikariDataSource();
            ds.setPoolName("paysync-shop");
            ds.setJdbcUrl(settings.require(DB_URL));
            settings.get(DB_USERNAME).ifPresent(ds::setUsername);
            settings.get(DB_PASSWORD).ifPresent(ds::setPassword);
            ds.setMaximumPoolSize(settings.getInt("paysync.shop.db.pool-size", 4, 1, 100));
            // A shop database that refuses connections fails a round within this, rather than HikariCP's 30 s: the
            // outbox retries it, and the timer's thread is not held.
            ds.setConnectionTimeout(settings.getInt("paysync.shop.db.connect-timeout-ms", 5000, 250, 600_000));
            // A statement of the shop's is one guarded UPDATE or one SELECT: each its own transaction.
            ds.setAutoCommit(true);
            ds.setTransactionIsolation("TRANSACTION_READ_COMMITTED");
            // Opened at its first use, so a shop database that is away delays the intake and the write-back, not the
            // start: the outbox keeps what the shop's table has not learnt.
            ds.setInitializationFailTimeout(-1);
            context.addService(new ServiceSupport() {
                @Override
                protected void doStop() {
                    ds.close();
                }
            });
            shop = ds;
        }
        context.getRegistry().bind("shopDataSource", shop);
        ShopOrders shopOrders = new ShopOrders(database, orders, clock);
        context.getRegistry()
                .bind(
                        "shopIntake",
                        new ShopIntake(
                                new ShopIntake.Settings(
                                        settings.getOrDefault("paysync.shop.intake.source", "shop-orders"),
                                        owner,
                                        Long.parseLong(String.valueOf(settings.getInt(
                                                "paysync.shop.intake.start-after", 0, 0, Integer.MAX_VALUE))),
                                        settings.getInt("paysync.shop.intake.batch-size", 500, 1, 10_000),
                                        Duration.ofSeconds(settings.getInt(
                                                "paysync.shop.intake.gap-grace-seconds", 600, 1, 604_800)),
                                        settings.getInt("paysync.shop.intake.max-gaps", 1000, 1, 100_000),
                                        Duration.ofSeconds(
                                                settings.getInt("paysync.shop.intake.lease-seconds", 60, 1, 86_400)),
                                        parallelism),
                                database,
                                shopOrders,
                                clock,
                                metrics,
                                context.getExecutorServiceManager()
                                        .newFixedThreadPool(ShopAdoption.class, "paysync-shop-intake", parallelism)));
        String legacy = settings.getOrDefault(LEGACY_PAYMENTS, "anomaly");
        if (!legacy.equals("anomaly") && !legacy.equals("accept")) {
            throw new InvalidSettingsException(
                    List.of(LEGACY_PAYMENTS + " must be anomaly or accept (is '" + legacy + "')"));
        }
        context.getRegistry()
                .bind(
                        "shopWatch",
                        new ShopWatch(
                                new ShopWatch.Settings(
                                        settings.getOrDefault("paysync.shop.intake.source", "shop-orders"),
                                        Duration.ofHours(
                                                settings.getInt("paysync.shop.watch.window-hours", 72, 1, 8760)),
                                        settings.getInt("paysync.shop.watch.max-orders", 5000, 1, 1_000_000),
                                        500,
                                        legacy.equals("accept")),
                                database,
                                orders,
                                rules,
                                clock,
                                metrics));
        // Bound whether on or off: the route exists either way, started only when on.
        ShopWriteBack delivery = new ShopWriteBack(
                new ShopWriteBack.Settings(
                        settings.getInt("paysync.shop.writeback.batch-size", 200, 1, 10_000),
                        Duration.ofSeconds(settings.getInt("paysync.shop.writeback.lease-seconds", 30, 1, 86_400)),
                        Duration.ofMillis(
                                settings.getInt("paysync.shop.writeback.backoff-initial-ms", 1000, 1, 86_400_000)),
                        Duration.ofMillis(
                                settings.getInt("paysync.shop.writeback.backoff-max-ms", 60_000, 1, 86_400_000))),
                database,
                clock,
                metrics);
        context.getRegistry().bind("shopWriteBack", delivery);
        if (writeBack) {
            database.writeBack(conclusions);
            delivery.observe();
        }
    }

    /**
     * The integrator's files of what is enabled, or the start is refused naming each missing: each route is made only
     * when enabled, and reads all its files then (the write-back all five, a conclusion written back or not).
     */
    private static void checkSqlFiles(Settings settings, Database database, boolean intake, boolean writeBack) {
        if (!intake && !writeBack) {
            return;
        }
        String dir = settings.require(SQL_DIR)
                .replace("{{paysync.db.dialect}}", database.dialect().folder());
        List<String> needed = new ArrayList<>();
        if (intake) {
            needed.addAll(List.of("intake.sql", "watch.sql"));
        }
        if (writeBack) {
            needed.addAll(List.of(
                    "writeback-paid.sql",
                    "writeback-completed.sql",
                    "writeback-failed.sql",
                    "writeback-expired.sql",
                    "writeback-cancelled.sql"));
        }
        List<String> problems = new ArrayList<>();
        for (String file : needed) {
            if (!Files.isRegularFile(Path.of(dir, file))) {
                problems.add(SQL_DIR + " (" + dir + ") has no " + file);
            }
        }
        if (!problems.isEmpty()) {
            throw new InvalidSettingsException(problems);
        }
    }
}
