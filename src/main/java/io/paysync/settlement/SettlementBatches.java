package io.paysync.settlement;

import io.paysync.http.ApiException;
import io.paysync.order.OrderRepository;
import io.paysync.payment.PaymentRules;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Applies one batch of a settlement file's rows in one transaction, through {@link PaymentRules} as callbacks with
 * the same fields would be (a refund, chargeback or reversal row as the callback's adjustment event), counting each
 * row's outcome in the run's report; the caller's checkpoint commits with them.
 *
 * <p>
 * A batch of payment rows only that names each order once goes as JDBC batches of the same guarded statements
 * ({@link OrderRepository#markAll}), since the order of its rows cannot matter; otherwise, or should the database
 * refuse a row (a transaction id bound to another order: PostgreSQL then aborts the whole transaction), the batch is
 * applied row by row, the second time with a savepoint around each transition, which is slower and needed only then.
 */
final class SettlementBatches {

    private static final Logger LOG = LoggerFactory.getLogger(SettlementBatches.class);

    private final TransactionTemplate tx;
    private final OrderRepository orders;
    private final PaymentRules rules;
    private final PaymentRules rulesWithSavepoints;

    SettlementBatches(TransactionTemplate tx, OrderRepository orders, PaymentRules rules) {
        this.tx = tx;
        this.orders = orders;
        this.rules = rules;
        this.rulesWithSavepoints = rules.withSavepoints();
    }

    /**
     * Applies {@code rows} for {@code run}; {@code checkpoint} runs last in the same transaction. On failure the run's
     * report is as it was before.
     */
    void apply(SettlementRun run, List<SettlementRow> rows, Consumer<SettlementRun> checkpoint) {
        SettlementReport before = run.report.copy();
        try {
            if (rows.stream().allMatch(SettlementRow::payment)
                    && rows.stream().map(SettlementRow::orderNumber).distinct().count() == rows.size()) {
                applyBatched(run, rows, checkpoint);
            } else {
                applyOneByOne(run, rows, rules, checkpoint);
            }
        } catch (SettlementClaims.LostClaim e) {
            run.report = before;
            throw e;
        } catch (RuntimeException e) {
            LOG.debug(
                    "Settlement file {}: batch refused by the database ({}); applying it again row by row",
                    SettlementNames.printable(run.fileName),
                    e.toString());
            run.report = before.copy();
            try {
                applyOneByOne(run, rows, rulesWithSavepoints, checkpoint);
            } catch (RuntimeException again) {
                run.report = before;
                throw again;
            }
        }
    }

    private void applyOneByOne(
            SettlementRun run, List<SettlementRow> rows, PaymentRules with, Consumer<SettlementRun> checkpoint) {
        tx.executeWithoutResult(status -> {
            for (SettlementRow row : rows) {
                SettlementRow.Reading reading = read(run, row);
                if (reading == null) {
                    continue;
                }
                if (reading.adjustment() != null) {
                    // Always under a savepoint: a guarded statement that moves nothing, or a duplicate gateway id,
                    // undoes that adjustment's work alone, never the batch.
                    run.report.count(settleAdjustment(() -> rulesWithSavepoints.applyAdjustment(
                            reading.adjustment(), reading.source(), outcome -> {})));
                } else {
                    run.report.count(
                            reading.pending() ? "pending" : settle(() -> with.apply(reading.news(), reading.source())));
                }
            }
            if (status.isRollbackOnly()) {
                throw new IllegalStateException("a transition of the batch was refused");
            }
            checkpoint.accept(run);
        });
    }

    /** Rows that moved nothing are then explained one by one, as a callback that moved nothing is. */
    private void applyBatched(SettlementRun run, List<SettlementRow> rows, Consumer<SettlementRun> checkpoint) {
        tx.executeWithoutResult(status -> {
            List<OrderRepository.Mark> marks = new ArrayList<>();
            List<SettlementRow.Reading> applied = new ArrayList<>();
            for (SettlementRow row : rows) {
                SettlementRow.Reading reading = read(run, row);
                if (reading == null) {
                    continue;
                }
                if (reading.pending()) {
                    run.report.count("pending");
                    continue;
                }
                applied.add(reading);
                marks.add(new OrderRepository.Mark(
                        reading.news().orderNumber(),
                        reading.news().transactionId(),
                        reading.news().amount(),
                        reading.news().currency(),
                        reading.news().succeeded(),
                        reading.source().cause()));
            }
            int[] moved = orders.markAll(marks);
            for (int i = 0; i < applied.size(); i++) {
                SettlementRow.Reading reading = applied.get(i);
                run.report.count(
                        moved[i] == 1
                                ? (reading.news().succeeded() ? PaymentRules.OUTCOME_PAID : PaymentRules.OUTCOME_FAILED)
                                : settle(() -> rules.explainUnmoved(reading.news(), reading.source())));
            }
            if (status.isRollbackOnly()) {
                throw new IllegalStateException("a transition of the batch was refused");
            }
            checkpoint.accept(run);
        });
    }

    /**
     * The report's outcome for an adjustment row: {@code recorded} when it stored or moved an adjustment,
     * {@code already-recorded} when the news changed nothing, or the refusal's code.
     */
    private static String settleAdjustment(Supplier<String> rulesSay) {
        try {
            return PaymentRules.adjustmentMoved(rulesSay.get()) ? "recorded" : "already-recorded";
        } catch (ApiException e) {
            return switch (e.code()) {
                case "unknown-order",
                        "adjustment-for-unpaid-order",
                        "adjustment-currency-mismatch",
                        "adjustment-exceeds-amount",
                        "reversal-without-chargeback",
                        "adjustment-conflict",
                        "adjustment-not-pending" -> e.code();
                default -> throw e;
            };
        }
    }

    /** The row's reading, or null once it is counted as malformed. */
    private static SettlementRow.Reading read(SettlementRun run, SettlementRow row) {
        try {
            return row.read(run.fileName);
        } catch (ApiException e) {
            run.report.malformed(row.line(), e.getMessage());
            return null;
        }
    }

    /**
     * The report's outcome for a final row: what the rules said of it (applied, or explained after the batched
     * statement moved nothing), or the refusal they threw, in the report's words.
     */
    private static String settle(Supplier<String> rulesSay) {
        try {
            String outcome = rulesSay.get();
            return PaymentRules.moved(outcome) ? outcome : "already-final";
        } catch (ApiException e) {
            return switch (e.code()) {
                case "order-not-pending" -> "already-final";
                case "unknown-order", "amount-mismatch", "transaction-conflict" -> e.code();
                default -> throw e;
            };
        }
    }
}
