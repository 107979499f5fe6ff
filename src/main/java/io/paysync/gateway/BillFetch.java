package io.paysync.gateway;

import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.LocalDate;
import java.time.LocalTime;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.time.format.DateTimeParseException;
import java.util.HexFormat;
import java.util.Locale;
import java.util.Objects;
import org.apache.camel.Exchange;
import org.apache.camel.Message;

/**
 * What a route that fetches a gateway's daily bill through its API needs besides the HTTP calls and the signatures:
 * which day is due ({@link #dueDay}), whether that day's bill is filed already ({@link #filed}), where a download URL
 * the gateway named may be asked ({@link #sameOrigin}) and whether what came is the bill ({@link #checkDigest},
 * {@link #requireZip}). The day comes from Paysync's clock ({@code paysyncClock}), in the gateway's time zone.
 */
public class BillFetch extends AdapterBean {

    private static final byte[] ZIP_MAGIC = {'P', 'K', 3, 4};

    private ZoneId zone = ZoneId.of("Asia/Shanghai");
    private LocalTime from = LocalTime.of(10, 0);
    private Path folder;
    private String fileName = "bill-{day}";

    public BillFetch() {
        super("the bill fetch's settings");
    }

    /**
     * Yesterday in the gateway's zone as {@code yyyy-MM-dd}, once today's {@code from} has come there; before it,
     * {@code null}: the gateway makes a day's bill in the morning after.
     */
    public String dueDay() {
        if (from == null) {
            throw new IllegalStateException("The bill fetch has no time of day to start from");
        }
        ZonedDateTime now = clock().instant().atZone(zone);
        if (now.toLocalTime().isBefore(from)) {
            return null;
        }
        return now.toLocalDate().minusDays(1).toString();
    }

    /** The name the day's bill is filed under: {@code fileName} with {@code {day}} replaced. */
    public String fileName(String day) {
        LocalDate.parse(day);
        return fileName.replace("{day}", day);
    }

    /**
     * Whether a bill of that name is in the adapter's folder: waiting there, converted ({@code .done/}) or refused
     * ({@code .failed/}, where an operator looks at it): in each case it is not fetched again.
     */
    public boolean filed(String name) {
        Path dir = Objects.requireNonNull(folder, "no folder");
        return Files.exists(dir.resolve(name))
                || Files.exists(dir.resolve(".done").resolve(name))
                || Files.exists(dir.resolve(".failed").resolve(name));
    }

    /**
     * The download URL's path and query as the request's {@code CamelHttpPath} and {@code CamelHttpQuery}, for the
     * endpoint of {@code base}: refused unless the URL has the same scheme, host and port, so the merchant's signed
     * request goes nowhere else, and the signer signs exactly the path and query sent.
     */
    public void sameOrigin(Exchange exchange, String url, String base) {
        URI target = uri(url, "The bill's download URL");
        URI api = uri(base, "The gateway's API URL");
        if (target.getScheme() == null
                || !target.getScheme().equalsIgnoreCase(api.getScheme())
                || target.getHost() == null
                || !target.getHost().equalsIgnoreCase(api.getHost())
                || port(target) != port(api)
                || target.getRawPath() == null
                || !target.getRawPath().startsWith("/")) {
            throw new IllegalStateException("The bill's download URL is not on the gateway's API host");
        }
        Message m = exchange.getMessage();
        m.setHeader(Exchange.HTTP_PATH, target.getRawPath());
        m.setHeader(Exchange.HTTP_QUERY, target.getRawQuery());
    }

    /**
     * The body, read whole, must have the digest the gateway named ({@code SHA1}: WeChat Pay's {@code hash_type}),
     * in hex, any case; it is left as those bytes.
     */
    public void checkDigest(Exchange exchange, String hashType, String hashValue) {
        String algorithm = switch (hashType == null ? "" : hashType.strip().toUpperCase(Locale.ROOT)) {
            case "SHA1", "SHA-1" -> "SHA-1";
            case "SHA256", "SHA-256" -> "SHA-256";
            default -> throw new IllegalStateException("The bill's hash_type is not SHA1");
        };
        byte[] bill = bytes(exchange);
        byte[] digest;
        try {
            digest = MessageDigest.getInstance(algorithm).digest(bill);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(algorithm + " is not available", e);
        }
        byte[] expected;
        try {
            expected = HexFormat.of().parseHex(hashValue == null ? "" : hashValue.strip());
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException("The bill's hash_value is not hex");
        }
        if (!MessageDigest.isEqual(digest, expected)) {
            throw new IllegalStateException("The downloaded bill does not have the " + hashType + " the gateway named ("
                    + bill.length + " bytes): nothing written");
        }
    }

    /** The body, read whole, must be a zip archive (an error page is not a bill); it is left as those bytes. */
    public void requireZip(Exchange exchange) {
        byte[] bill = bytes(exchange);
        if (bill.length < ZIP_MAGIC.length) {
            throw new IllegalStateException("The downloaded bill is not a zip archive (" + bill.length + " bytes)");
        }
        for (int i = 0; i < ZIP_MAGIC.length; i++) {
            if (bill[i] != ZIP_MAGIC[i]) {
                throw new IllegalStateException(
                        "The downloaded bill is not a zip archive (" + bill.length + " bytes): nothing written");
            }
        }
    }

    private static byte[] bytes(Exchange exchange) {
        byte[] bill = exchange.getMessage().getBody(byte[].class);
        if (bill == null) {
            throw new IllegalStateException("The gateway sent no bill");
        }
        exchange.getMessage().setBody(bill);
        return bill;
    }

    private static URI uri(String value, String what) {
        try {
            return new URI(value == null ? "" : value.strip());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(what + " is not a URL");
        }
    }

    private static int port(URI uri) {
        if (uri.getPort() >= 0) {
            return uri.getPort();
        }
        return "https".equalsIgnoreCase(uri.getScheme()) ? 443 : 80;
    }

    /** The gateway's time zone, where its days begin: Asia/Shanghai for WeChat Pay and Alipay. */
    public void setZone(String zone) {
        this.zone = ZoneId.of(zone.strip());
    }

    /**
     * The time of day, in the gateway's zone, from which yesterday's bill is asked for ({@code H:mm} or
     * {@code HH:mm}). A bean is made before the settings are checked: another value leaves none here, and the check
     * refuses the start naming the setting ({@code SettlementAdapters}).
     */
    public void setFrom(String from) {
        String value = from == null ? "" : from.strip();
        try {
            this.from = LocalTime.parse(value.length() == 4 ? "0" + value : value);
        } catch (DateTimeParseException e) {
            this.from = null;
        }
    }

    /** The adapter's folder the bill is filed into; empty while the route does not exist. */
    public void setFolder(String folder) {
        this.folder = folder == null || folder.isBlank() ? null : Path.of(folder.strip());
    }

    /** The bill's file name, {@code {day}} standing for the day ({@code yyyy-MM-dd}). */
    public void setFileName(String fileName) {
        this.fileName = fileName;
    }

    @Override
    public String toString() {
        return "BillFetch[" + fileName + "]";
    }
}
