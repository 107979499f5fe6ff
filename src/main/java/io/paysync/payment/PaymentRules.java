package io.paysync.payment;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.paysync.db.TransitionLog;
import io.paysync.http.ApiException;
import io.paysync.order.Adjustment;
import io.paysync.order.AdjustmentRepository;
import io.paysync.order.AdjustmentStatus;
import io.paysync.order.Money;
import io.paysync.order.Order;
import io.paysync.order.OrderApi;
import io.paysync.order.OrderRepository;
import io.paysync.order.PaymentStatus;
import io.paysync.trace.OrderTrace;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.Optional;
import java.util.function.Consumer;
import org.springframework.dao.DuplicateKeyException;

/**
 * Decides what a piece of payment news does to an order, whoever brings it: the signed callback, a gateway adapter,
 * the gateway's status API, a settlement file's row. Each is a {@link Source}; the rules are the same for all: one
 * guarded UPDATE that checks state, amount and currency at once, and only when it moves nothing a read of the order to
 * say why (a duplicate is a success; a different amount, an order already final, or a transaction bound to another
 * order is refused with an anomaly an operator sees). Nothing is decided from a read taken before the UPDATE. The
 * shop's own decision, cancelling an order still Pending ({@link #cancel}), is decided here by the same rule, so a
 * cancel and a success racing for one order leave exactly one of them applied, and a success for a Cancelled order
 * never moves it.
 *
 * <p>
 * Refusals are thrown as {@link ApiException}s with the callback's codes, so an HTTP source answers them as they are
 * and a batch source counts them by code.
 */
public final class PaymentRules {

    public static final String OUTCOME_PAID = "paid";
    public static final String OUTCOME_ALREADY_PAID = "already-paid";
    public static final String OUTCOME_FAILED = "failed";
    public static final String OUTCOME_IGNORED = "ignored";
    public static final String OUTCOME_CANCELLED = "cancelled";
    public static final String OUTCOME_ALREADY_CANCELLED = "already-cancelled";

    /** The anomaly of a success for an order the shop cancelled: money nobody expects, to be refunded. */
    public static final String SUCCESS_AFTER_CANCEL = "success-after-cancel";

    /** The cause the history records for a transition made on the gateway status API's answer. */
    public static final String RECONCILIATION_CAUSE = "reconciliation";

    /** The cause the history records for a transition made on the gateway's answer to the expiry's close. */
    public static final String EXPIRY_CLOSE_CAUSE = "expiry close";

    /**
     * Where an authentic piece of news came from: the id its anomalies carry, the cause written to the history, how
     * its anomalies quote it, and whether it repeats itself (then each anomaly is recorded once, not every time) or
     * is redelivered under its id (then each anomaly is recorded once per id and kind).
     */
    public record Source(String id, TransitionLog.Cause cause, String says, boolean repeats, boolean redelivered) {

        public Source(String id, TransitionLog.Cause cause, String says, boolean repeats) {
            this(id, cause, says, repeats, false);
        }

        /** The signed callback, named by its {@code webhook-id}. */
        public static Source callback(String webhookId) {
            return new Source(webhookId, TransitionLog.Cause.callback(webhookId), "callback says ", false);
        }

        /** An event a gateway adapter in {@code routes/adapters/} verified and mapped. */
        public static Source gatewayEvent(String gateway, String eventId) {
            return new Source(
                    eventId,
                    TransitionLog.Cause.gateway(gateway + " event " + eventId, eventId),
                    gateway + " event says ",
                    false,
                    true);
        }

        /** A final answer of the gateway's status API: the same answer comes back every round. */
        public static Source reconciliation() {
            return new Source(
                    null, TransitionLog.Cause.gateway(RECONCILIATION_CAUSE), "gateway status API says ", true);
        }

        /**
         * The gateway's answer to the expiry's close: its status API's shape, asked again every round while the order
         * stays Pending, so each anomaly is recorded once.
         */
        public static Source expiryClose() {
            return new Source(
                    null, TransitionLog.Cause.gateway(EXPIRY_CLOSE_CAUSE), "gateway's answer to the close says ", true);
        }

        /**
         * The shop's own table, where its old web service still sets the payment bit ({@code cause}: which row): the
         * same row is read every watch round, so each anomaly is recorded once.
         */
        public static Source legacy(String cause) {
            return new Source(null, TransitionLog.Cause.legacy(cause), "the shop's table says ", true);
        }

        /** A settlement file's row, named by its file and line ({@code cause}). */
        public static Source settlement(String cause) {
            return new Source(null, TransitionLog.Cause.gateway(cause), cause + " says ", false);
        }
    }

    private final OrderRepository orders;
    private final AdjustmentRepository adjustmentRepository;
    private final AdjustmentRules adjustments;

    public PaymentRules(OrderRepository orders, AdjustmentRepository adjustments) {
        this.orders = orders;
        this.adjustmentRepository = adjustments;
        this.adjustments = new AdjustmentRules(orders, adjustments);
    }

    /**
     * The same rules whose transitions run under a savepoint inside a caller's transaction (see
     * {@link OrderRepository#withSavepoints()}): for a source that applies many rows in one transaction.
     */
    public PaymentRules withSavepoints() {
        return new PaymentRules(orders.withSavepoints(), adjustmentRepository.withSavepoints());
    }

    /**
     * Applies {@code news} from {@code source}; returns the outcome or throws the refusal. The order and the outcome
     * (or the refusal's code) go on the current span, when traced.
     */
    public String apply(CallbackRequest news, Source source) {
        return apply(news, source, outcome -> {});
    }

    /**
     * As {@link #apply(CallbackRequest, Source)}; {@code withTransition} runs in the transition's transaction, given
     * the outcome, when the order moves (the callback's audit row, so its hot path is one commit).
     */
    public String apply(CallbackRequest news, Source source, Consumer<String> withTransition) {
        try {
            String outcome = decide(news, source, withTransition);
            OrderTrace.outcome(news.orderNumber(), outcome);
            return outcome;
        } catch (ApiException refused) {
            OrderTrace.outcome(news.orderNumber(), refused.code());
            throw refused;
        }
    }

    /**
     * A status route's final answer ({@code succeeded} or {@code failed}) from {@code source}. A {@code failed} answer
     * that names no transaction is a payment the gateway ended without one (WeChat Pay's CLOSED, PAYERROR or REVOKED
     * trade, Alipay's TRADE_CLOSED before any payment): the order moves Pending -> Failed on its own amount, checked
     * against the answer's when the answer gives one. Anything else is read as a callback.
     */
    public String applyAnswer(ObjectNode json, Source source) {
        if (!endedUnpaid(json)) {
            return apply(CallbackRequest.parse(json), source);
        }
        String orderNumber = OrderApi.orderNumber(json.get("orderNumber"), "orderNumber");
        Order order = current(orderNumber);
        CallbackRequest news = new CallbackRequest(orderNumber, null, order.amount(), order.currency(), false);
        JsonNode amount = json.get("amount");
        if (amount != null && !amount.isNull()) {
            String currency = Money.currency(json.get("currency"), "currency");
            news = new CallbackRequest(orderNumber, null, Money.amount(amount, "amount", currency), currency, false);
        }
        return apply(news, source);
    }

    /** Whether a status answer is a payment the gateway ended without a transaction: {@code failed}, none named. */
    public static boolean endedUnpaid(ObjectNode json) {
        JsonNode transaction = json.get("transactionId");
        JsonNode status = json.get("status");
        return (transaction == null || transaction.isNull()) && status != null && "failed".equals(status.asText(null));
    }

    private String decide(CallbackRequest news, Source source, Consumer<String> withTransition) {
        String orderNumber = news.orderNumber();
        String transactionId = news.transactionId();
        if (news.succeeded()) {
            int moved;
            try {
                moved = orders.markPaid(
                        orderNumber,
                        transactionId,
                        news.amount(),
                        news.currency(),
                        source.cause(),
                        () -> withTransition.accept(OUTCOME_PAID));
            } catch (DuplicateKeyException e) {
                // The unique index refused: this transaction already paid another order (the guard matched, so the
                // amount and currency are the order's).
                throw transactionConflict(news, source, orders.orderBoundTo(transactionId));
            }
            return moved == 1 ? OUTCOME_PAID : unmovedSuccess(news, source);
        }
        if (orders.markFailed(
                        orderNumber,
                        transactionId,
                        news.amount(),
                        news.currency(),
                        source.cause(),
                        () -> withTransition.accept(OUTCOME_FAILED))
                == 1) {
            return OUTCOME_FAILED;
        }
        return unmovedFailure(news, source);
    }

    /**
     * Pending -> Cancelled, the shop's decision ({@code cause}: its backend or an operator; {@code detail}: for the
     * history); returns the outcome or throws the refusal. Zero rows moved is decided from the order as it is then: a
     * Cancelled order is the same decision again ({@code already-cancelled}, a success that changes nothing); a Paid
     * one is refused with {@code 409 order-paid} (a paid order is refunded, never cancelled); a Failed or Expired one
     * with {@code 409 order-final}; an unknown one with {@code 404 unknown-order}.
     */
    public String cancel(String orderNumber, TransitionLog.Cause cause, String detail) {
        try {
            String outcome =
                    orders.cancel(orderNumber, cause, detail) == 1 ? OUTCOME_CANCELLED : unmovedCancel(orderNumber);
            OrderTrace.outcome(orderNumber, outcome);
            return outcome;
        } catch (ApiException refused) {
            OrderTrace.outcome(orderNumber, refused.code());
            throw refused;
        }
    }

    private String unmovedCancel(String orderNumber) {
        Order current = current(orderNumber);
        requireFinal(current);
        return switch (current.paymentStatus()) {
            case Cancelled -> OUTCOME_ALREADY_CANCELLED;
            case Paid ->
                throw new ApiException(
                        409,
                        "order-paid",
                        "Order " + orderNumber + " is Paid: a paid order is not cancelled; refund it instead");
            default ->
                throw new ApiException(
                        409,
                        "order-final",
                        "Order " + orderNumber + " is " + current.paymentStatus()
                                + " already: there is nothing to cancel");
        };
    }

    /**
     * A row of a batch that the batched statements did not move ({@link OrderRepository#markAll}): explained exactly
     * as after the single statement.
     */
    public String explainUnmoved(CallbackRequest news, Source source) {
        return news.succeeded() ? unmovedSuccess(news, source) : unmovedFailure(news, source);
    }

    /** Whether an outcome changed the order. */
    public static boolean moved(String outcome) {
        return OUTCOME_PAID.equals(outcome) || OUTCOME_FAILED.equals(outcome);
    }

    /** Zero rows moved by a failure: a different amount is refused, a final order ignores it. */
    private String unmovedFailure(CallbackRequest news, Source source) {
        Order current = current(news.orderNumber());
        requireSameAmount(news, source, current);
        requireFinal(current);
        return OUTCOME_IGNORED;
    }

    /** Zero rows moved by a success: decide from what the order is now. */
    private String unmovedSuccess(CallbackRequest news, Source source) {
        String orderNumber = news.orderNumber();
        String transactionId = news.transactionId();
        Order current = current(orderNumber);
        requireSameAmount(news, source, current);
        if (current.paymentStatus() == PaymentStatus.Paid && transactionId.equals(current.paymentTransactionId())) {
            return OUTCOME_ALREADY_PAID;
        }
        Optional<String> boundTo = orders.orderBoundTo(transactionId);
        if (boundTo.isPresent() && !boundTo.get().equals(orderNumber)) {
            throw transactionConflict(news, source, boundTo);
        }
        requireFinal(current);
        if (current.paymentStatus() == PaymentStatus.Cancelled) {
            // Money for an order the shop gave up on: never Paid, never sent as paid; an operator refunds it. The
            // transaction is in the detail so that a repeating source records each payment once, not all as one.
            anomaly(
                    source,
                    SUCCESS_AFTER_CANCEL,
                    news,
                    source.says() + "transaction " + transactionId
                            + " succeeded, but the order is Cancelled: refund it at the gateway");
            throw notPending(current);
        }
        anomaly(
                source,
                "order-not-pending",
                news,
                "success " + (source.repeats() ? "answer" : "callback") + " for an order that is "
                        + current.paymentStatus()
                        + (current.paymentTransactionId() == null
                                ? ""
                                : " by transaction " + current.paymentTransactionId()));
        throw notPending(current);
    }

    private static ApiException notPending(Order current) {
        return new ApiException(
                409,
                "order-not-pending",
                "Order " + current.orderNumber() + " is " + current.paymentStatus() + ", not Pending");
    }

    /**
     * An order the guarded update did not move is final: a Pending one cannot happen under READ COMMITTED (the
     * UPDATE saw the committed row), so it is refused rather than guessed at.
     */
    private static void requireFinal(Order current) {
        if (!current.paymentStatus().isFinal()) {
            throw new IllegalStateException(
                    "Order " + current.orderNumber() + " is Pending but the guarded update moved no row");
        }
    }

    private Order current(String orderNumber) {
        return orders.find(orderNumber).orElseThrow(() -> ApiException.unknownOrder(orderNumber));
    }

    /** News whose amount or currency is not the order's is refused (422) and recorded, whatever the state. */
    private void requireSameAmount(CallbackRequest news, Source source, Order order) {
        if (!order.currency().equals(news.currency()) || !Money.sameAmount(order.amount(), news.amount())) {
            anomaly(
                    source,
                    "amount-mismatch",
                    news,
                    source.says() + news.amount().toPlainString() + " " + news.currency() + ", order is "
                            + Money.format(order.amount(), order.currency()) + " " + order.currency());
            throw new ApiException(
                    422, "amount-mismatch", "Amount or currency differs from order " + news.orderNumber());
        }
    }

    private ApiException transactionConflict(CallbackRequest news, Source source, Optional<String> boundTo) {
        anomaly(
                source,
                "transaction-conflict",
                news,
                "transaction " + news.transactionId() + " is already bound to order " + boundTo.orElse("(unknown)"));
        return new ApiException(
                409,
                "transaction-conflict",
                "Transaction " + news.transactionId() + " is already bound to another order");
    }

    private void anomaly(Source source, String kind, CallbackRequest news, String detail) {
        if (source.repeats()) {
            orders.recordAnomalyOnce(kind, news.orderNumber(), news.transactionId(), source.id(), detail);
        } else if (source.redelivered()) {
            orders.recordAnomalyOncePerEvent(kind, news.orderNumber(), news.transactionId(), source.id(), detail);
        } else {
            orders.recordAnomaly(kind, news.orderNumber(), news.transactionId(), source.id(), detail);
        }
    }

    /**
     * An authentic gateway event that its adapter route refuses on a check of its own, before any rule runs (an
     * Alipay notification for another merchant app): recorded as an anomaly of {@code kind}, once per event when the
     * gateway delivers it again.
     */
    public void recordRefusal(Source source, String kind, String orderNumber, String transactionId, String detail) {
        String text = source.says() + detail;
        if (source.redelivered()) {
            orders.recordAnomalyOncePerEvent(kind, orderNumber, transactionId, source.id(), text);
        } else {
            orders.recordAnomaly(kind, orderNumber, transactionId, source.id(), text);
        }
    }

    // ----- Adjustments: refunds, chargebacks and their reversals of a Paid order (AdjustmentRules) -----

    /**
     * Applies news of an adjustment from {@code source}; returns the outcome ({@code recorded}, {@code final},
     * {@code void}, {@code already-recorded}, {@code ignored}) or throws the refusal. {@code withTransition} runs in
     * the transition's transaction, given the outcome, when something is stored or moves (the callback's audit row).
     */
    public String applyAdjustment(AdjustmentRepository.News news, Source source, Consumer<String> withTransition) {
        try {
            String outcome = adjustments.apply(news, source, withTransition);
            OrderTrace.outcome(news.orderNumber(), outcome);
            return outcome;
        } catch (ApiException refused) {
            OrderTrace.outcome(news.orderNumber(), refused.code());
            throw refused;
        }
    }

    /**
     * A refund that a gateway reports by the total refunded so far of the order (Alipay's {@code refund_fee}), not by
     * its own amount: {@code news} carries that total as its amount. Decided under the order's row lock, so two
     * reports of one order never both count the same money: what the order's refunds already hold (not Void) is taken
     * off the total, and the rest, when there is any, is recorded as the refund {@code news.gatewayId()} by the usual
     * rules. Every refund counts, whoever told of it: an order is paid through one gateway, so its refunds are that
     * gateway's, whether its notifications or its bill recorded them (a refund the bill recorded while its
     * notification was lost is in the next notification's total too). A total those refunds already reach is
     * {@code already-recorded}: the same report again, or an earlier refund reported after a later one, whose money
     * the later one's recording took in. The order's refunds so add up to the largest total the gateway reported,
     * however often and in whatever order its reports come.
     */
    public String applyRefundedSoFar(AdjustmentRepository.News news, Source source) {
        AdjustmentRules withSavepoints =
                new AdjustmentRules(orders.withSavepoints(), adjustmentRepository.withSavepoints());
        Object decided = adjustmentRepository.underOrderLock(news.orderNumber(), () -> {
            BigDecimal held = adjustmentRepository.forOrder(news.orderNumber()).stream()
                    .filter(a -> Adjustment.REFUND.equals(a.kind()) && a.status() != AdjustmentStatus.Void)
                    .map(Adjustment::amount)
                    .reduce(BigDecimal.ZERO, BigDecimal::add);
            BigDecimal rest = news.amount().subtract(held);
            if (rest.signum() <= 0) {
                return AdjustmentRules.OUTCOME_ALREADY_RECORDED;
            }
            AdjustmentRepository.News step = new AdjustmentRepository.News(
                    news.orderNumber(),
                    news.gatewayId(),
                    news.kind(),
                    rest.setScale(news.amount().scale(), RoundingMode.UNNECESSARY),
                    news.currency(),
                    null,
                    news.status());
            try {
                return withSavepoints.apply(step, source, outcome -> {});
            } catch (ApiException refused) {
                return refused; // thrown after the commit, which keeps the refusal's anomaly
            }
        });
        if (decided instanceof ApiException refused) {
            OrderTrace.outcome(news.orderNumber(), refused.code());
            throw refused;
        }
        OrderTrace.outcome(news.orderNumber(), (String) decided);
        return (String) decided;
    }

    /**
     * The order a gateway transaction paid, if any: how a source names the order of an adjustment whose gateway object
     * carries the payment's id but not the order number (a Stripe dispute names its PaymentIntent). None is the
     * callback's {@code 404 unknown-order}, with an anomaly {@code adjustment-for-unknown-order} naming the
     * transaction ({@code what}: the adjustment, for the anomaly's text).
     */
    public String orderPaidBy(String transactionId, Source source, String what) {
        return orders.orderBoundTo(transactionId).orElseThrow(() -> {
            String detail = source.says() + what + " of payment " + transactionId + ", but no order is paid by it";
            if (source.repeats()) {
                orders.recordAnomalyOnce("adjustment-for-unknown-order", null, transactionId, source.id(), detail);
            } else if (source.redelivered()) {
                orders.recordAnomalyOncePerEvent(
                        "adjustment-for-unknown-order", null, transactionId, source.id(), detail);
            } else {
                orders.recordAnomaly("adjustment-for-unknown-order", null, transactionId, source.id(), detail);
            }
            return new ApiException(404, "unknown-order", "No order is paid by transaction " + transactionId);
        });
    }

    /** Whether an adjustment's outcome stored or moved something. */
    public static boolean adjustmentMoved(String outcome) {
        return AdjustmentRules.moved(outcome);
    }
}
