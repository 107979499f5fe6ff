package io.paysync.gateway;

import java.time.Clock;
import org.apache.camel.CamelContext;
import org.apache.camel.CamelContextAware;
import org.apache.camel.Exchange;

/**
 * What every bean of the kit an adapter declares is configured with besides its own shape: whether the adapter is on
 * ({@code enabled}), the setting its keys come from ({@code keySetting}, named in messages, its value never), and the
 * clock signed timestamps are checked against.
 */
public abstract class AdapterBean implements CamelContextAware {

    private boolean enabled = true;
    private String keySetting;
    private Clock clock;
    private CamelContext camelContext;

    protected AdapterBean(String keySetting) {
        this.keySetting = keySetting;
    }

    /** Refuses to start, naming the setting, when the adapter is on and {@code found} no key. */
    protected final void requireKeys(boolean found) {
        if (enabled && !found) {
            throw Schemes.notSet(keySetting);
        }
    }

    /**
     * The request is the gateway's: the body becomes its text, exactly the bytes that were checked (a form the HTTP
     * server parsed, null here, stays as parsed), and the exchange carries {@link Schemes#VERIFIED}, without which
     * the canonical mapping refuses it.
     */
    protected static void verified(Exchange exchange, String body) {
        if (body != null) {
            exchange.getMessage().setBody(body);
        }
        exchange.setProperty(Schemes.VERIFIED, Boolean.TRUE);
    }

    protected final Clock clock() {
        if (clock == null) {
            clock = Schemes.clock(camelContext);
        }
        return clock;
    }

    protected final boolean isEnabled() {
        return enabled;
    }

    protected final String keySetting() {
        return keySetting;
    }

    /** Whether the adapter is on: only then is a missing key a reason to refuse to start. */
    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    /** The setting the keys come from, for messages (their values are never shown). */
    public void setKeySetting(String keySetting) {
        this.keySetting = keySetting;
    }

    @Override
    public void setCamelContext(CamelContext camelContext) {
        this.camelContext = camelContext;
    }

    @Override
    public CamelContext getCamelContext() {
        return camelContext;
    }
}
