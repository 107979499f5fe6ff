package io.paysync.observe;

import io.paysync.sync.CallOutcome;
import io.paysync.sync.SendAttempt;
import io.paysync.sync.ThirdPartyCall;
import java.util.Locale;
import org.apache.camel.Exchange;
import org.apache.camel.spi.CamelEvent;
import org.apache.camel.spi.CamelEvent.ExchangeSentEvent;
import org.apache.camel.support.EventNotifierSupport;

/**
 * Times every HTTP call to the third party (the request routes of routes/third-party.camel.yaml), failures included,
 * from Camel's own "exchange sent" event: one event per try, in-process redeliveries too. A call that ends without an
 * answer (refused, timed out, cut) is counted here, as {@link CallOutcome#RETRYABLE} or {@link CallOutcome#IN_DOUBT} by
 * {@link ThirdPartyCall#mayHaveReachedThirdParty}; an answered call is counted by {@link ThirdPartyCall#classify},
 * which decides what the answer means.
 */
public class ThirdPartyCallMetrics extends EventNotifierSupport {

    private final BusinessMetrics metrics;

    public ThirdPartyCallMetrics(BusinessMetrics metrics) {
        this.metrics = metrics;
        setIgnoreCamelContextEvents(true);
        setIgnoreRouteEvents(true);
        setIgnoreServiceEvents(true);
        setIgnoreStepEvents(true);
        setIgnoreExchangeCreatedEvent(true);
        setIgnoreExchangeCompletedEvent(true);
        setIgnoreExchangeFailedEvents(true);
        setIgnoreExchangeRedeliveryEvents(true);
        setIgnoreExchangeSendingEvents(true);
        setIgnoreExchangeAsyncProcessingStartedEvents(true);
    }

    @Override
    public boolean isEnabled(CamelEvent event) {
        return event instanceof ExchangeSentEvent sent && isThirdPartyCall(sent);
    }

    @Override
    public void notify(CamelEvent event) {
        ExchangeSentEvent sent = (ExchangeSentEvent) event;
        metrics.callTook(sent.getTimeTaken() * 1_000_000L); // Camel measures it in ms
        Exchange exchange = sent.getExchange();
        Throwable failure = exchange.getException();
        if (failure != null) {
            metrics.called(
                    ThirdPartyCall.mayHaveReachedThirdParty(failure) ? CallOutcome.IN_DOUBT : CallOutcome.RETRYABLE);
        }
    }

    /** An http(s) endpoint, called for a {@link SendAttempt} ({@link ThirdPartyCall#decide} marked the exchange). */
    static boolean isThirdPartyCall(ExchangeSentEvent sent) {
        String uri = sent.getEndpoint() == null
                ? ""
                : sent.getEndpoint().getEndpointUri().toLowerCase(Locale.ROOT);
        return (uri.startsWith("http:") || uri.startsWith("https:"))
                && sent.getExchange().getProperty(SendAttempt.PROPERTY) != null;
    }
}
