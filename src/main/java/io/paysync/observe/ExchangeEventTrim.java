package io.paysync.observe;

import java.util.List;

import org.apache.camel.CamelContext;
import org.apache.camel.ExtendedStartupListener;
import org.apache.camel.component.micrometer.eventnotifier.MicrometerRouteEventNotifier;
import org.apache.camel.spi.EventNotifier;
import org.apache.camel.spi.ManagementStrategy;

/**
 * Stops Camel from building an event for every exchange that no one wants. Camel offers each exchange's creation,
 * start and completion to every started event notifier that does not say it ignores exchange events, creating the
 * event object to ask it; two of Camel's own notifiers want none yet do not say so: camel-micrometer's route event
 * notifier (route events only: {@code camel_routes_*}) and camel-main's placeholder summary (logs once, when the routes
 * have started). Creating and dispatching those events ({@code EventHelper.doNotifyEvent}) is among the hottest Camel
 * work of every callback, for no one (bench/profile-b1-compare.sh shows where a callback's CPU goes). Once the
 * context has fully started, the first is told it ignores exchange events (it ignores each one anyway) and the
 * second, its one log written, is removed. {@link ThirdPartyCallMetrics} declares its own; the notifiers that do want
 * exchange events (it, the dev consoles and endpoint statistics where enabled) stay. A Camel upgrade that renames
 * either shows in {@code ObservabilityTest}.
 */
final class ExchangeEventTrim implements ExtendedStartupListener {

    static final String PLACEHOLDER_SUMMARY = "org.apache.camel.main.BaseMainSupport$PlaceholderSummaryEventNotifier";

    @Override
    public void onCamelContextStarted(CamelContext context, boolean alreadyStarted) {
        // not yet: the placeholder summary logs when the routes have started
    }

    @Override
    public void onCamelContextFullyStarted(CamelContext context, boolean alreadyStarted) {
        ManagementStrategy management = context.getManagementStrategy();
        for (EventNotifier notifier : List.copyOf(management.getEventNotifiers())) {
            if (notifier instanceof MicrometerRouteEventNotifier) {
                notifier.setIgnoreExchangeEvents(true);
            } else if (notifier.getClass().getName().equals(PLACEHOLDER_SUMMARY)) {
                management.removeEventNotifier(notifier);
            }
        }
    }
}
