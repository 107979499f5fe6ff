package io.paysync.settlement;

import io.paysync.config.InvalidSettingsException;
import io.paysync.config.Settings;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import org.apache.camel.CamelContext;

/**
 * The settings of the routes in {@code routes/adapters/} that turn a gateway's own settlement report into the
 * canonical settlement format ({@code routes/adapters/stripe-settlement.camel.yaml}, {@code wechatpay-bill.camel.yaml},
 * {@code alipay-bill.camel.yaml}). The mapping is the route's; this
 * only checks the folders and the metadata key before anything starts, and tells the route whether to exist through
 * {@code <prefix>.enabled}, as {@link SettlementFiles#from} does for the canonical route.
 */
public final class SettlementAdapters {

    public static final String STRIPE = "paysync.adapters.stripe-settlement";

    /** WeChat Pay's trade bill ({@code routes/adapters/wechatpay-bill.camel.yaml}). */
    public static final String WECHATPAY_BILL = "paysync.adapters.wechatpay-bill";

    /** Alipay's bill, a zip of GBK CSV files ({@code routes/adapters/alipay-bill.camel.yaml}). */
    public static final String ALIPAY_BILL = "paysync.adapters.alipay-bill";

    /**
     * A metadata key the route can put in a column name and a Simple literal: Stripe allows anything but square
     * brackets; this keeps to what order-number keys are made of.
     */
    /** A time of day, {@code H:mm} or {@code HH:mm}. */
    private static final Pattern FETCH_FROM = Pattern.compile("([01]?[0-9]|2[0-3]):[0-5][0-9]");

    private static final Pattern METADATA_KEY = Pattern.compile("[A-Za-z0-9_.:-]{1,40}");

    private SettlementAdapters() {}

    /** After {@link SettlementFiles#from}, which has made {@code paysync.settlement.inbox} absolute. */
    public static void configure(Settings settings, CamelContext context) {
        timing(settings, context, STRIPE);
        String key = settings.getOrDefault(STRIPE + ".order-number-key", "order_number");
        if (!METADATA_KEY.matcher(key).matches()) {
            throw new InvalidSettingsException(List.of(STRIPE + ".order-number-key must be 1 to 40 letters, digits, "
                    + "'_', '.', ':' or '-' (is '" + key + "')"));
        }
        context.getPropertiesComponent().addOverrideProperty(STRIPE + ".order-number-key", key);
        inbox(settings, context, STRIPE);
        for (String bill : List.of(WECHATPAY_BILL, ALIPAY_BILL)) {
            timing(settings, context, bill);
            boolean inbox = inbox(settings, context, bill);
            fetch(settings, context, bill, inbox);
        }
    }

    /**
     * {@code <prefix>.fetch-from}: unset, the bill is not fetched through the gateway's API. Set, a time of day
     * ({@code HH:mm}, the gateway's zone), the fetch route asks for yesterday's bill every {@code .fetch-period-ms}
     * from then on until it is filed; it needs the adapter's folder, where it files the bill, and the gateway's signed
     * requests ({@code paysync.adapters.wechatpay.*}, or {@code paysync.adapters.alipay.requests.enabled}).
     */
    static boolean fetch(Settings settings, CamelContext context, String prefix, boolean inbox) {
        String setting = prefix + ".fetch-from";
        String configured = settings.getOrDefault(setting, "").strip();
        boolean enabled = !configured.isEmpty();
        String from = "10:00";
        if (enabled) {
            if (!FETCH_FROM.matcher(configured).matches()) {
                throw new InvalidSettingsException(List.of(setting + " must be a time of day HH:mm, in the "
                        + "gateway's time zone Asia/Shanghai (is '" + configured + "')"));
            }
            from = configured.length() == 4 ? "0" + configured : configured;
            List<String> problems = new ArrayList<>();
            if (!inbox) {
                problems.add(setting + " is set but " + prefix + ".inbox is not: the fetched bill is filed there");
            }
            List<String> needed = prefix.equals(WECHATPAY_BILL)
                    ? List.of(
                            "paysync.adapters.wechatpay.mchid",
                            "paysync.adapters.wechatpay.merchant-serial",
                            "paysync.adapters.wechatpay.merchant-private-key")
                    : List.of();
            String requests = prefix.equals(WECHATPAY_BILL)
                    ? "paysync.adapters.wechatpay.enabled"
                    : "paysync.adapters.alipay.requests.enabled";
            if (!settings.getBoolean(requests, false)) {
                problems.add(setting + " is set but " + requests + " is not true: the bill is asked for by the "
                        + "gateway's signed requests");
            }
            for (String key : needed) {
                if (settings.getOrDefault(key, "").isBlank()) {
                    problems.add(setting + " is set but " + key + " is not: the bill is asked for by the "
                            + "gateway's signed requests");
                }
            }
            if (!problems.isEmpty()) {
                throw new InvalidSettingsException(problems);
            }
        }
        context.getPropertiesComponent().addOverrideProperty(setting, from);
        settings.routeInt(prefix + ".fetch-period-ms", 900_000, 100, 86_400_000);
        context.getPropertiesComponent().addOverrideProperty(prefix + ".fetch.enabled", String.valueOf(enabled));
        return enabled;
    }

    /** {@code <prefix>.poll-ms} and {@code .stable-ms}, given to the route even where no properties file sets them. */
    private static void timing(Settings settings, CamelContext context, String prefix) {
        context.getPropertiesComponent()
                .addOverrideProperty(
                        prefix + ".poll-ms",
                        String.valueOf(settings.getInt(prefix + ".poll-ms", 5000, 100, 86_400_000)));
        context.getPropertiesComponent()
                .addOverrideProperty(
                        prefix + ".stable-ms",
                        String.valueOf(settings.getInt(prefix + ".stable-ms", 1000, 100, 600_000)));
    }

    /**
     * {@code <prefix>.inbox}: unset, the adapter's route is not created. Set, it must be a folder of its own (the
     * canonical route would otherwise take the gateway's report for a canonical file and refuse it), and the canonical
     * inbox it writes into must be set too.
     */
    static boolean inbox(Settings settings, CamelContext context, String prefix) {
        String setting = prefix + ".inbox";
        String configured = settings.getOrDefault(setting, "").strip();
        boolean enabled = !configured.isEmpty();
        if (enabled) {
            String canonical = settings.get(SettlementFiles.INBOX).orElse(null);
            if (canonical == null) {
                throw new InvalidSettingsException(List.of(setting + " is set but " + SettlementFiles.INBOX
                        + " is not: the adapter writes the files it converts into that folder"));
            }
            if (canonical.contains("'")) {
                throw new InvalidSettingsException(List.of(SettlementFiles.INBOX + " (" + canonical + ") must not "
                        + "contain ' while " + setting + " is set: the adapter's route quotes that path"));
            }
            Path inbox = SettlementArchive.folder(
                    setting, configured, "converted reports move to its .done/ and .failed/ folders");
            if (inbox.equals(Path.of(canonical))) {
                throw new InvalidSettingsException(List.of(setting + " must be another folder than "
                        + SettlementFiles.INBOX + " (" + inbox + "): the gateway's reports are not in the canonical "
                        + "format"));
            }
            context.getPropertiesComponent().addOverrideProperty(setting, inbox.toString());
        }
        context.getPropertiesComponent().addOverrideProperty(prefix + ".enabled", String.valueOf(enabled));
        return enabled;
    }
}
