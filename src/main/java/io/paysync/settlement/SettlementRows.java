package io.paysync.settlement;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.camel.dataformat.csv.CsvRecordConverter;
import org.apache.commons.csv.CSVFormat;
import org.apache.commons.csv.CSVParser;
import org.apache.commons.csv.CSVRecord;

/**
 * The CSV data format's record converter for settlement files: each record becomes a {@link SettlementRow} by
 * header name, whatever the order of the columns, other columns ignored. Header names are matched without regard to
 * case or surrounding spaces, and a UTF-8 byte order mark (spreadsheet exports write one) is not part of the first.
 */
public final class SettlementRows implements CsvRecordConverter<SettlementRow> {

    public static final String ORDER_NUMBER = "order_number";
    public static final String TRANSACTION_ID = "transaction_id";
    public static final String AMOUNT = "amount";
    public static final String CURRENCY = "currency";
    public static final String STATUS = "status";
    public static final String SETTLED_AT = "settled_at";
    public static final String KIND = "kind";
    public static final String REVERSES = "reverses";

    /** The columns a file must have; {@code settled_at}, {@code kind} and {@code reverses} are optional. */
    public static final List<String> REQUIRED = List.of(ORDER_NUMBER, TRANSACTION_ID, AMOUNT, CURRENCY, STATUS);

    /** The header of the file being read: one file at a time per route, so one parser at a time. */
    private volatile Header header;

    private record Header(CSVParser parser, Map<String, Integer> columns) {}

    @Override
    public SettlementRow convertRecord(CSVRecord record) {
        Header h = header;
        if (h == null || h.parser() != record.getParser()) {
            h = new Header(record.getParser(), columns(record.getParser().getHeaderNames()));
            header = h;
        }
        Map<String, Integer> columns = h.columns();
        // The parser reads the header before the first record it numbers.
        long index = record.getRecordNumber();
        long line = index + 1;
        String problem = record.size()
                        < columns.values().stream().mapToInt(i -> i + 1).max().orElse(0)
                ? "the row has " + record.size() + " fields, the header names more"
                : null;
        return new SettlementRow(
                index,
                line,
                field(record, columns, ORDER_NUMBER),
                field(record, columns, TRANSACTION_ID),
                field(record, columns, AMOUNT),
                field(record, columns, CURRENCY),
                field(record, columns, STATUS),
                field(record, columns, SETTLED_AT),
                field(record, columns, KIND),
                field(record, columns, REVERSES),
                problem);
    }

    private static String field(CSVRecord record, Map<String, Integer> columns, String name) {
        Integer i = columns.get(name);
        return i == null || i >= record.size() ? null : record.get(i);
    }

    /** Column name (normalised) to its position; the first of two columns with the same name wins. */
    public static Map<String, Integer> columns(List<String> headerNames) {
        Map<String, Integer> columns = new HashMap<>();
        for (int i = 0; i < headerNames.size(); i++) {
            String name = headerNames.get(i);
            if (name == null) {
                continue;
            }
            if (i == 0 && name.startsWith("\uFEFF")) {
                name = name.substring(1);
            }
            columns.putIfAbsent(name.strip().toLowerCase(Locale.ROOT), i);
        }
        return columns;
    }

    /** The required columns a header lacks, in the contract's order. */
    public static List<String> missing(Map<String, Integer> columns) {
        List<String> missing = new ArrayList<>();
        for (String name : REQUIRED) {
            if (!columns.containsKey(name)) {
                missing.add(name);
            }
        }
        return missing;
    }

    /**
     * Why a file cannot be applied at all (a required column missing, a header that is not UTF-8 CSV), or null, from
     * the file's content; the stream is closed.
     */
    public static String headerRefusal(InputStream content) throws IOException {
        CSVFormat format = CSVFormat.DEFAULT
                .builder()
                .setHeader()
                .setSkipHeaderRecord(true)
                .get();
        // A decoder of its own reports bytes that are not UTF-8, where a reader made with the charset replaces them.
        try (Reader reader = new BufferedReader(new InputStreamReader(content, StandardCharsets.UTF_8.newDecoder()));
                CSVParser parser =
                        CSVParser.builder().setReader(reader).setFormat(format).get()) {
            List<String> missing = missing(columns(parser.getHeaderNames()));
            return missing.isEmpty()
                    ? null
                    : "the header lacks the column" + (missing.size() > 1 ? "s " : " ") + String.join(", ", missing);
        } catch (CharacterCodingException e) {
            return "the header is not UTF-8 text";
        } catch (UncheckedIOException | IllegalArgumentException | IllegalStateException e) {
            return "the header is not a CSV record: " + e.getMessage();
        }
    }
}
