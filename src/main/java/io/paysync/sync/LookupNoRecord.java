package io.paysync.sync;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.paysync.config.InvalidSettingsException;
import io.paysync.config.Settings;
import io.paysync.http.Json;
import java.util.List;
import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.Expression;
import org.apache.camel.support.DefaultExchange;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether a lookup's answer says the third party has no record of the order: {@value #SETTING}, a jq expression over
 * {@code {"status": <HTTP status>, "body": <the answer as JSON, or null>}} that gives true or false. Its default,
 * {@value #DEFAULT}, is the default third party's "no record".
 *
 * <p>
 * A "no record" lets Paysync create the record anew, which cannot be undone, so the expression is only asked about an
 * answer that could mean it: never about a {@code 2xx} that carries the record's id (found, whatever it says), nor
 * about {@code 408}, {@code 429} or a {@code 5xx} (the third party could not tell). An expression that fails on an
 * answer, or gives anything but a boolean, has not said "no record".
 */
public final class LookupNoRecord {

    public static final String SETTING = "paysync.third-party.lookup.no-record";
    public static final String DEFAULT = ".status == 404";

    private static final Logger LOG = LoggerFactory.getLogger(LookupNoRecord.class);

    /** Answers the expression is tried on at start: it must give a boolean for both, or the start is refused. */
    private static final List<ObjectNode> SAMPLES =
            List.of(envelope(404, null), envelope(200, Json.MAPPER.createObjectNode()));

    private final CamelContext context;
    private final String text;
    private final Expression expression;

    private LookupNoRecord(CamelContext context, String text, Expression expression) {
        this.context = context;
        this.text = text;
        this.expression = expression;
    }

    /** Compiled with Camel's jq language, the one the request routes use; a bad expression refuses the start. */
    public static LookupNoRecord from(Settings s, CamelContext context) {
        String text = s.getOrDefault(SETTING, DEFAULT);
        Expression expression;
        try {
            expression = context.resolveLanguage("jq").createExpression(text);
            expression.init(context);
        } catch (RuntimeException e) {
            throw new InvalidSettingsException(
                    List.of(SETTING + " (" + text + ") is not a jq expression: " + rootMessage(e)));
        }
        LookupNoRecord rule = new LookupNoRecord(context, text, expression);
        for (ObjectNode sample : SAMPLES) {
            try {
                rule.evaluate(sample);
            } catch (RuntimeException e) {
                throw new InvalidSettingsException(List.of(SETTING + " (" + text + ") must give true or false for "
                        + "every answer; for " + sample + ": " + rootMessage(e)));
            }
        }
        return rule;
    }

    /** Whether the answer says there is no record; see the class comment for the answers it is never asked about. */
    boolean saysNoRecord(int status, JsonNode body) {
        if (status == 408 || status == 429 || status >= 500) {
            return false;
        }
        try {
            return evaluate(envelope(status, body));
        } catch (RuntimeException e) {
            LOG.warn(
                    "{} ({}) failed on a lookup's HTTP {} answer, which is therefore not taken as no record: {}",
                    SETTING,
                    text,
                    status,
                    rootMessage(e));
            return false;
        }
    }

    private boolean evaluate(ObjectNode answer) {
        Exchange exchange = new DefaultExchange(context);
        exchange.getMessage().setBody(answer);
        Object result = expression.evaluate(exchange, Object.class);
        if (result instanceof JsonNode node && node.isBoolean()) {
            return node.booleanValue();
        }
        throw new IllegalArgumentException("gave " + (result == null ? "nothing" : result) + ", not true or false");
    }

    private static ObjectNode envelope(int status, JsonNode body) {
        ObjectNode answer = Json.MAPPER.createObjectNode();
        answer.put("status", status);
        answer.set("body", body);
        return answer;
    }

    private static String rootMessage(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null && t.getCause() != t) {
            t = t.getCause();
        }
        return t.getMessage() == null ? t.getClass().getSimpleName() : t.getMessage();
    }
}
