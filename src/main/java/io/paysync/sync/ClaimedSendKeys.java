package io.paysync.sync;

import org.apache.camel.Exchange;
import org.apache.camel.processor.idempotent.jdbc.JdbcMessageIdRepository;
import org.apache.camel.spi.IdempotentRepository;
import org.apache.camel.support.service.ServiceSupport;

/**
 * The idempotent consumer's repository of third-party send keys: Camel's JDBC table {@code CAMEL_MESSAGEPROCESSED},
 * whose rows the claim itself writes for its whole batch in the claim's transaction (one commit per batch, not one
 * per order). So {@link #add(Exchange, String)} writes nothing: it answers from what the claim found, "new" when the
 * claim wrote the key and "duplicate" when the key was already there, which means an earlier attempt may have created
 * the record; the call reads that verdict where the claim put it, on the {@link SendAttempt}, and this marks the
 * attempt as having passed the consumer. Looking keys up and forgetting them go to the table through Camel's
 * {@link JdbcMessageIdRepository}.
 */
public class ClaimedSendKeys extends ServiceSupport implements IdempotentRepository {

    private final JdbcMessageIdRepository table;

    public ClaimedSendKeys(JdbcMessageIdRepository table) {
        this.table = table;
    }

    /** The key of the exchange's {@link SendAttempt}, as its claim wrote it: true when it is new. */
    @Override
    public boolean add(Exchange exchange, String key) {
        SendAttempt attempt = exchange.getMessage().getBody(SendAttempt.class);
        if (attempt == null || !key.equals(attempt.getSendKey())) {
            // The idempotent consumer must sit where the body is the claimed order, keyed by its send key.
            throw new IllegalStateException("the send-key idempotent consumer got key " + key + " for a body that is "
                    + (attempt == null ? "not a claimed order" : "send key " + attempt.getSendKey()));
        }
        attempt.sendKeyChecked(true);
        return !attempt.order().sendKeyFound();
    }

    /** Only the claim writes keys (with its batch): adding one by key alone would bypass it. */
    @Override
    public boolean add(String key) {
        throw new UnsupportedOperationException("send keys are written by the claim");
    }

    @Override
    public boolean contains(String key) {
        return table.contains(key);
    }

    @Override
    public boolean remove(String key) {
        return table.remove(key);
    }

    @Override
    public boolean confirm(String key) {
        return true;
    }

    @Override
    public void clear() {
        throw new UnsupportedOperationException("send keys are forgotten one by one, when no record was made");
    }

    @Override
    protected void doStart() throws Exception {
        table.start();
    }

    @Override
    protected void doStop() throws Exception {
        table.stop();
    }
}
