package io.paysync.payment;

import io.paysync.http.ApiException;
import io.paysync.order.Adjustment;
import io.paysync.order.AdjustmentRepository;
import io.paysync.order.AdjustmentRepository.News;
import io.paysync.order.AdjustmentRepository.OrderTotal;
import io.paysync.order.AdjustmentRepository.Recorded;
import io.paysync.order.AdjustmentStatus;
import io.paysync.order.Money;
import io.paysync.order.OrderRepository;
import io.paysync.order.PaymentStatus;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * What news of an adjustment (a refund, a chargeback, a chargeback reversed) does, for {@link PaymentRules}: its own
 * class so the adjustment's machine reads apart from the payment's. The same shape as the payment's rules: guarded
 * statements first ({@link AdjustmentRepository}), and only when they move nothing a read to say why: a duplicate is
 * a success; an unknown or unpaid order, another currency, a total past the order's amount, a reversal of no
 * chargeback, news contradicting what the adjustment is, are refused with an anomaly.
 */
final class AdjustmentRules {

    /** A new adjustment stored. */
    static final String OUTCOME_RECORDED = "recorded";
    /** A Pending adjustment moved to Final. */
    static final String OUTCOME_FINAL = "final";
    /** A Pending adjustment moved to Void, releasing its share of the total. */
    static final String OUTCOME_VOID = "void";
    /** The same news again: nothing changed. */
    static final String OUTCOME_ALREADY_RECORDED = "already-recorded";

    /**
     * How often the guarded statements are tried when the read after them finds nothing wrong: each time another
     * transaction changed what they guard between them and the read (a Void released the total, the same adjustment
     * was stored meanwhile). Each retry follows progress elsewhere, so a few suffice.
     */
    private static final int ATTEMPTS = 5;

    private final OrderRepository orders;
    private final AdjustmentRepository adjustments;

    AdjustmentRules(OrderRepository orders, AdjustmentRepository adjustments) {
        this.orders = orders;
        this.adjustments = adjustments;
    }

    String apply(News news, PaymentRules.Source source, Consumer<String> withTransition) {
        for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
            if (news.status().isFinal()
                    && adjustments.move(news, source.cause(), () -> withTransition.accept(outcomeOfMove(news)))) {
                return outcomeOfMove(news);
            }
            Recorded recorded = adjustments.record(news, source.cause(), () -> withTransition.accept(OUTCOME_RECORDED));
            if (recorded == Recorded.RECORDED) {
                return OUTCOME_RECORDED;
            }
            Optional<String> decided = explain(news, source);
            if (decided.isPresent()) {
                return decided.get();
            }
        }
        throw new IllegalStateException("The " + news.describe() + " of order " + news.orderNumber()
                + " fits its order but its guarded statements moved nothing " + ATTEMPTS + " times");
    }

    /** Whether an outcome changed something (the callback's audit row was then written with it). */
    static boolean moved(String outcome) {
        return OUTCOME_RECORDED.equals(outcome) || OUTCOME_FINAL.equals(outcome) || OUTCOME_VOID.equals(outcome);
    }

    private static String outcomeOfMove(News news) {
        return news.status() == AdjustmentStatus.Final ? OUTCOME_FINAL : OUTCOME_VOID;
    }

    /**
     * The guarded statements moved nothing: an outcome or a refusal from what is there now, or empty when what is
     * there now would have let them move (another transaction changed it in between: try again).
     */
    private Optional<String> explain(News news, PaymentRules.Source source) {
        Optional<Adjustment> existing = adjustments.find(news.gatewayId());
        if (existing.isPresent()) {
            return explainExisting(existing.get(), news, source);
        }
        String orderNumber = news.orderNumber();
        OrderTotal order = adjustments.orderTotal(orderNumber).orElse(null);
        if (order == null) {
            anomaly(source, "adjustment-for-unknown-order", news, "there is no order " + orderNumber);
            throw ApiException.unknownOrder(orderNumber);
        }
        if (order.paymentStatus() != PaymentStatus.Paid) {
            anomaly(source, "adjustment-for-unpaid-order", news, "the order is " + order.paymentStatus());
            throw new ApiException(
                    409,
                    "adjustment-for-unpaid-order",
                    "Order " + orderNumber + " is " + order.paymentStatus() + ", not Paid");
        }
        if (!order.currency().equals(news.currency())) {
            anomaly(source, "adjustment-currency-mismatch", news, "the order is in " + order.currency());
            throw new ApiException(
                    422,
                    "adjustment-currency-mismatch",
                    "The adjustment's currency differs from order " + orderNumber + "'s");
        }
        if (Adjustment.CHARGEBACK_REVERSED.equals(news.kind())) {
            return explainReversal(news, source);
        }
        if (news.status() != AdjustmentStatus.Void
                && order.adjusted().add(news.amount()).compareTo(order.amount()) > 0) {
            anomaly(
                    source,
                    "adjustment-exceeds-amount",
                    news,
                    "the order's " + Money.format(order.amount(), order.currency()) + " "
                            + order.currency() + " has " + Money.format(order.adjusted(), order.currency())
                            + " adjusted already");
            throw new ApiException(
                    409,
                    "adjustment-exceeds-amount",
                    "The adjustments of order " + orderNumber + " would exceed its amount");
        }
        return Optional.empty();
    }

    /** A reversal refused: its chargeback missing (or not this order's, or not Final), or reversed past its amount. */
    private Optional<String> explainReversal(News news, PaymentRules.Source source) {
        Optional<Adjustment> chargeback = adjustments.find(news.reverses());
        if (chargeback.isEmpty()
                || !Adjustment.CHARGEBACK.equals(chargeback.get().kind())
                || !chargeback.get().orderNumber().equals(news.orderNumber())
                || chargeback.get().status() != AdjustmentStatus.Final) {
            anomaly(
                    source,
                    "reversal-without-chargeback",
                    news,
                    "order " + news.orderNumber() + " has no chargeback " + news.reverses());
            throw new ApiException(
                    409,
                    "reversal-without-chargeback",
                    "Order " + news.orderNumber() + " has no chargeback " + news.reverses());
        }
        Adjustment cb = chargeback.get();
        if (cb.reversedAmount().add(news.amount()).compareTo(cb.amount()) > 0) {
            anomaly(
                    source,
                    "adjustment-exceeds-amount",
                    news,
                    "chargeback " + cb.gatewayId() + " of " + Money.format(cb.amount(), cb.currency()) + " "
                            + cb.currency() + " has " + Money.format(cb.reversedAmount(), cb.currency())
                            + " reversed already");
            throw new ApiException(
                    409,
                    "adjustment-exceeds-amount",
                    "The reversals of chargeback " + cb.gatewayId() + " would exceed its amount");
        }
        return Optional.empty();
    }

    /** News under a gateway id already stored: the same news, a later state of it, or a contradiction. */
    private Optional<String> explainExisting(Adjustment stored, News news, PaymentRules.Source source) {
        if (!stored.sameContent(news.orderNumber(), news.kind(), news.amount(), news.currency(), news.reverses())) {
            anomaly(
                    source,
                    "adjustment-conflict",
                    news,
                    "gateway id " + news.gatewayId() + " is the " + stored.kind() + " of "
                            + Money.format(stored.amount(), stored.currency()) + " " + stored.currency()
                            + " of order " + stored.orderNumber());
            throw new ApiException(
                    409,
                    "adjustment-conflict",
                    "Adjustment " + news.gatewayId() + " is recorded with another order, kind, amount or currency");
        }
        if (stored.status() == news.status()) {
            return Optional.of(OUTCOME_ALREADY_RECORDED);
        }
        if (news.status() == AdjustmentStatus.Pending) {
            // Late news of a state it has left: what it says is already superseded.
            return Optional.of(PaymentRules.OUTCOME_IGNORED);
        }
        if (stored.status() == AdjustmentStatus.Pending) {
            return Optional.empty(); // stored as Pending after the move looked: move it now
        }
        anomaly(source, "adjustment-not-pending", news, "it is " + stored.status() + " already");
        throw new ApiException(
                409,
                "adjustment-not-pending",
                "Adjustment " + news.gatewayId() + " is " + stored.status() + ", not Pending");
    }

    private void anomaly(PaymentRules.Source source, String kind, News news, String detail) {
        String text = source.says() + news.describe() + " " + news.status() + ", but " + detail;
        if (source.repeats()) {
            orders.recordAnomalyOnce(kind, news.orderNumber(), null, source.id(), text);
        } else if (source.redelivered()) {
            orders.recordAnomalyOncePerEvent(kind, news.orderNumber(), null, source.id(), text);
        } else {
            orders.recordAnomaly(kind, news.orderNumber(), null, source.id(), text);
        }
    }
}
