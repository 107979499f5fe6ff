package io.paysync.settlement;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.paysync.http.Json;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What became of a settlement file's rows: the report written beside the file, and the checkpoint kept in the
 * database while the file is applied (so a file resumed after a crash reports every row once). The malformed rows'
 * line numbers are listed up to {@link #MAX_LINES}, and the first {@link #MAX_EXAMPLES} with the reason, so that a
 * file of nothing but bad rows still makes a report of bounded size.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public final class SettlementReport {

    public static final List<String> OUTCOMES = List.of(
            "paid",
            "failed",
            "already-final",
            "unknown-order",
            "amount-mismatch",
            "transaction-conflict",
            "recorded",
            "already-recorded",
            "adjustment-for-unpaid-order",
            "adjustment-currency-mismatch",
            "adjustment-exceeds-amount",
            "reversal-without-chargeback",
            "adjustment-conflict",
            "adjustment-not-pending",
            "pending",
            "malformed");

    static final int MAX_LINES = 10_000;
    static final int MAX_EXAMPLES = 20;

    /** A malformed row and why. */
    public record Example(long line, String reason) {}

    @JsonProperty
    public String file;

    @JsonProperty
    public String sha256;
    /** Applied, or refused whole (then {@link #error} says why). */
    @JsonProperty
    public String state;

    @JsonProperty
    public String error;

    @JsonProperty
    public String takenAt;

    @JsonProperty
    public String finishedAt;
    /** Set when the same file (name and content) had been applied before: nothing of it was applied again. */
    @JsonProperty
    public String alreadyAppliedAt;

    @JsonProperty
    public long rows;

    @JsonProperty
    public Map<String, Long> counts = new LinkedHashMap<>();

    @JsonProperty
    public List<Long> malformedLines = new ArrayList<>();

    @JsonProperty
    public boolean malformedLinesTruncated;

    @JsonProperty
    public List<Example> malformedExamples = new ArrayList<>();

    public SettlementReport() {
        for (String outcome : OUTCOMES) {
            counts.put(outcome, 0L);
        }
    }

    public static SettlementReport of(String file, String sha256, String takenAt) {
        SettlementReport r = new SettlementReport();
        r.file = file;
        r.sha256 = sha256;
        r.takenAt = takenAt;
        return r;
    }

    public void count(String outcome) {
        if (!OUTCOMES.contains(outcome)) {
            throw new IllegalArgumentException("Not an outcome of a settlement row: " + outcome);
        }
        counts.merge(outcome, 1L, Long::sum);
        rows++;
    }

    public void malformed(long line, String reason) {
        count("malformed");
        if (malformedLines.size() < MAX_LINES) {
            malformedLines.add(line);
        } else {
            malformedLinesTruncated = true;
        }
        if (malformedExamples.size() < MAX_EXAMPLES) {
            malformedExamples.add(new Example(line, reason));
        }
    }

    public String toJson() {
        return new String(Json.write(this), StandardCharsets.UTF_8);
    }

    public static SettlementReport fromJson(String json) {
        try {
            return Json.MAPPER.readValue(json, SettlementReport.class);
        } catch (IOException e) {
            throw new IllegalStateException("A settlement file's stored report is not readable", e);
        }
    }

    public SettlementReport copy() {
        return fromJson(toJson());
    }
}
