package io.paysync.config;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.apache.camel.CamelContext;
import org.apache.camel.spi.PropertiesComponent;

/**
 * The {@code paysync.*} settings, read once at start from Camel's properties (file, {@code -D}, environment; the
 * environment wins). Every problem is collected so that a refused start names all of them at once.
 */
public final class Settings {

    public static final String DB_URL = "paysync.db.url";
    public static final String DB_USERNAME = "paysync.db.username";
    public static final String DB_PASSWORD = "paysync.db.password";
    public static final String DB_POOL_SIZE = "paysync.db.pool-size";
    public static final String DB_SCHEMA = "paysync.db.schema";
    public static final String WEBHOOK_SECRET = "paysync.gateway.webhook-secret";
    public static final String TOLERANCE_SECONDS = "paysync.gateway.tolerance-seconds";
    public static final String ADMIN_TOKEN = "paysync.admin.token";
    public static final String THIRD_PARTY_URL = "paysync.third-party.url";
    public static final String API_TOKEN = "paysync.api.token";

    /** Settings that have no default outside the dev profile. */
    static final List<String> REQUIRED =
            List.of(DB_URL, DB_USERNAME, DB_PASSWORD, WEBHOOK_SECRET, ADMIN_TOKEN, THIRD_PARTY_URL);

    /** Settings that are optional in the dev profile only: there, an unset shop token leaves the orders API open. */
    static final List<String> REQUIRED_OUTSIDE_DEV = List.of(API_TOKEN);

    /**
     * Of those, the ones that may be set to an empty value on purpose: a database with trust or integrated
     * authentication has no password. They must still be set, so that "no password" is a decision, not an oversight.
     */
    static final List<String> MAY_BE_EMPTY = List.of(DB_PASSWORD);

    /**
     * Settings required only while the switch beside them is true (setting -> switch). The status URL only while
     * reconciliation asks the gateway status API, not an adapter's status route. WeChat Pay's mchid, because a blank
     * one would make every notification another merchant's.
     */
    static final Map<String, String> REQUIRED_WHILE = Map.of(
            "paysync.gateway.status-url", "paysync.reconciliation.enabled",
            "paysync.adapters.wechatpay.mchid", "paysync.adapters.wechatpay.enabled");

    private final PropertiesComponent properties;
    private final String profile;

    public Settings(CamelContext context, String profile) {
        this.properties = context.getPropertiesComponent();
        this.profile = profile == null ? "dev" : profile;
    }

    public String profile() {
        return profile;
    }

    public boolean isDev() {
        return "dev".equals(profile);
    }

    public Optional<String> get(String key) {
        return properties.resolveProperty(key).map(String::trim).filter(v -> !v.isEmpty());
    }

    /**
     * The gateway adapters' switches ({@code paysync.adapters.*.enabled}) the settings name, each with its value as
     * resolved (the environment and -D win over the files, as for every setting).
     */
    public Map<String, String> adapterSwitches() {
        Map<String, String> switches = new java.util.TreeMap<>();
        for (String key : properties
                .loadProperties(k -> k.startsWith("paysync.adapters.") && k.endsWith(".enabled"))
                .stringPropertyNames()) {
            switches.put(key, properties.resolveProperty(key).orElse("false"));
        }
        return switches;
    }

    public String require(String key) {
        return get(key).orElseThrow(() -> new InvalidSettingsException(List.of(missing(key))));
    }

    public String getOrDefault(String key, String defaultValue) {
        return get(key).orElse(defaultValue);
    }

    /** true or false (any case); anything else is refused, so a typo never silently means false. */
    public boolean getBoolean(String key, boolean defaultValue) {
        String raw = get(key).orElse(null);
        if (raw == null) {
            return defaultValue;
        }
        if (raw.equalsIgnoreCase("true") || raw.equalsIgnoreCase("false")) {
            return Boolean.parseBoolean(raw);
        }
        throw new InvalidSettingsException(List.of(key + " must be true or false (is '" + raw + "')"));
    }

    public int getInt(String key, int defaultValue, int min, int max) {
        String raw = get(key).orElse(null);
        if (raw == null) {
            return defaultValue;
        }
        try {
            int value = Integer.parseInt(raw);
            if (value < min || value > max) {
                throw new InvalidSettingsException(
                        List.of(key + " must be between " + min + " and " + max + " (is " + value + ")"));
            }
            return value;
        } catch (NumberFormatException e) {
            throw new InvalidSettingsException(List.of(key + " must be a whole number (is '" + raw + "')"));
        }
    }

    /**
     * A whole number that a route reads as {@code {{key}}} rather than Java: checked here, so a value out of range
     * refuses the start instead of failing a consumer later, and handed to the route as the value checked (the
     * default when unset), so the route and this check never disagree.
     */
    public int routeInt(String key, int defaultValue, int min, int max) {
        int value = getInt(key, defaultValue, min, max);
        properties.addOverrideProperty(key, String.valueOf(value));
        return value;
    }

    /**
     * Fails with one message naming every required setting that is missing. In {@code dev} the profile file provides
     * them all, so this only bites where secrets have no defaults.
     */
    public void checkRequired() {
        List<String> problems = new ArrayList<>();
        for (String key : REQUIRED) {
            boolean present =
                    MAY_BE_EMPTY.contains(key) ? properties.resolveProperty(key).isPresent() : get(key).isPresent();
            if (!present) {
                problems.add(missing(key));
            }
        }
        if (!isDev()) {
            for (String key : REQUIRED_OUTSIDE_DEV) {
                if (get(key).isEmpty()) {
                    problems.add(missing(key) + "; outside the dev profile the orders API is never open");
                }
            }
        }
        REQUIRED_WHILE.forEach((key, when) -> {
            boolean adapterStatus = key.equals("paysync.gateway.status-url")
                    && !getOrDefault("paysync.reconciliation.status-route", "direct:gateway-status")
                            .strip()
                            .equals("direct:gateway-status");
            if (Boolean.parseBoolean(getOrDefault(when, "false")) && !adapterStatus && get(key).isEmpty()) {
                problems.add(missing(key) + "; it is needed while " + when + " is true");
            }
        });
        if (!problems.isEmpty()) {
            throw new InvalidSettingsException(problems);
        }
    }

    static String missing(String key) {
        return key + " is not set (property " + key + ", or environment variable " + envName(key) + ")"
                + (MAY_BE_EMPTY.contains(key) ? "; set it empty if the database needs none" : "");
    }

    /** The environment variable Camel reads for a property: upper case, '.' and '-' turned into '_'. */
    public static String envName(String key) {
        return key.toUpperCase(Locale.ROOT).replace('.', '_').replace('-', '_');
    }
}
