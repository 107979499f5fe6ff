package io.paysync.support;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A real HTTP server standing in for the third party (docs/third-party.md): idempotent create keyed by Idempotency-Key,
 * lookup by order number, a log of every request, and faults injected per request from a script. Adjustments
 * ({@code /adjustments}) are records of their own, keyed and looked up by their gateway id, and refused with 422 when
 * the record they refer to (the order's, or a reversal's chargeback's) does not exist, is another order's, or is not
 * named: counted in {@link #adjustmentsBeforeTheirRecord()}, which Paysync must keep at zero. Scripts, requests and
 * record counts take an adjustment's gateway id where they take an order number.
 */
public final class ThirdPartyStub implements AutoCloseable {

    /** What the stub does with one request. */
    public enum Fault {
        /** Create (or find) the record and answer 201/200 with its id. */
        NONE,
        /** Answer with a status and no record (the status is in {@link Step#status}). */
        STATUS,
        /** Create the record, then close the connection without an answer: the response is lost. */
        CREATE_THEN_DROP,
        /** Create the record, then answer only after {@link Step#delayMs}: the caller times out. */
        CREATE_THEN_HANG,
        /** Answer 200 with a body that is not JSON (no record). */
        NON_JSON,
        /** Answer 201 with JSON that has no id (no record). */
        NO_ID,
        /** Close the connection without an answer and without a record: a reset before anything happened. */
        DROP,
        /** Work on the request for {@link Step#delayMs}, then create the record and answer: a slow third party. */
        HANG_THEN_CREATE
    }

    public record Step(Fault fault, int status, long delayMs, String retryAfter) {
        public static Step ok() {
            return new Step(Fault.NONE, 0, 0, null);
        }

        public static Step status(int status) {
            return new Step(Fault.STATUS, status, 0, null);
        }

        public static Step status(int status, String retryAfter) {
            return new Step(Fault.STATUS, status, 0, retryAfter);
        }

        public static Step of(Fault fault) {
            return new Step(fault, 0, 0, null);
        }

        public static Step lateCreate(long delayMs) {
            return new Step(Fault.HANG_THEN_CREATE, 0, delayMs, null);
        }

        public static Step hang(long delayMs) {
            return new Step(Fault.CREATE_THEN_HANG, 0, delayMs, null);
        }
    }

    /**
     * One request as received; {@code port} tells which listener (so which worker, in the chaos run) sent it.
     * {@code target}: the path and query as sent; {@code headers}: every header, names in lower case.
     */
    public record Request(
            String method,
            String orderNumber,
            String idempotencyKey,
            String body,
            long atNanos,
            int port,
            String target,
            Map<String, List<String>> headers,
            String adjustmentId,
            String refersTo) {

        /** The order number, or for an adjustment its gateway id: what scripts and counts are keyed by. */
        public String subject() {
            return adjustmentId != null ? adjustmentId : orderNumber;
        }
    }

    /**
     * What the stub did with a request: the status it answered (0: none), the record's id and whether it is new;
     * {@code atNanos}: taken before the answer is sent, so a record it names existed by then and anything the caller
     * did on reading the answer comes after.
     */
    public record Answer(Request request, Fault fault, int status, String recordId, boolean created, long atNanos) {}

    /**
     * Told about every request on arrival (before any record is created) and after its answer is sent or dropped; the
     * chaos run records its history and kills workers from here. Runs on the stub's request thread.
     */
    public interface Observer {
        default void received(Request request) {}

        default void answered(Answer answer) {}
    }

    private static final Pattern ORDER_NUMBER = Pattern.compile("\"orderNumber\"\\s*:\\s*\"([^\"]*)\"");
    private static final Pattern ADJUSTMENT_ID = Pattern.compile("\"adjustmentId\"\\s*:\\s*\"([^\"]*)\"");
    private static final Pattern REFERS_TO = Pattern.compile("\"refersTo\"\\s*:\\s*\"([^\"]*)\"");
    private static final Pattern REVERSES = Pattern.compile("\"reverses\"\\s*:\\s*\"([^\"]*)\"");
    private static final Pattern KIND = Pattern.compile("\"kind\"\\s*:\\s*\"([^\"]*)\"");

    private final Map<String, String> idsByKey = new ConcurrentHashMap<>();
    private final Map<String, String> idsByOrder = new ConcurrentHashMap<>();
    private final Map<String, AtomicInteger> createdPerOrder = new ConcurrentHashMap<>();
    private final Map<String, String> recordSubjects = new ConcurrentHashMap<>();
    private final AtomicInteger adjustmentsBeforeTheirRecord = new AtomicInteger();
    private final List<Request> requests = new CopyOnWriteArrayList<>();
    private final Map<String, Deque<Step>> scriptPerOrder = new ConcurrentHashMap<>();
    private volatile Step always;
    private volatile boolean idempotent = true;
    private volatile boolean listLookup;
    private volatile Function<Request, Step> faults;
    private volatile Observer observer = new Observer() {};
    private final CountDownLatch released = new CountDownLatch(1);
    private final int port;
    private HttpServer server;
    private final List<HttpServer> extraServers = new CopyOnWriteArrayList<>();

    private ThirdPartyStub(int port) {
        this.port = port;
    }

    public static ThirdPartyStub start() throws IOException {
        ThirdPartyStub stub = new ThirdPartyStub(PaysyncInstance.freePort());
        stub.listen();
        return stub;
    }

    private void listen() throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", port), 200);
        server.createContext("/records", this::handle);
        server.createContext("/adjustments", this::handle);
        server.setExecutor(Executors.newCachedThreadPool());
        server.start();
    }

    /** Stops listening: connections are refused until {@link #resume()}. */
    public void refuseConnections() {
        server.stop(0);
    }

    public void resume() throws IOException {
        listen();
    }

    public String url() {
        return "http://127.0.0.1:" + port;
    }

    /** One more listener on its own port sharing this third party's records, so requests tell who sent them. */
    public String addListener() throws IOException {
        int extra = PaysyncInstance.freePort();
        HttpServer s = HttpServer.create(new InetSocketAddress("127.0.0.1", extra), 200);
        s.createContext("/records", this::handle);
        s.createContext("/adjustments", this::handle);
        s.setExecutor(Executors.newCachedThreadPool());
        s.start();
        extraServers.add(s);
        return "http://127.0.0.1:" + extra;
    }

    /** Chooses the step for every request not covered by {@link #always} or a script (null: no faults). */
    public ThirdPartyStub faults(Function<Request, Step> chooser) {
        this.faults = chooser;
        return this;
    }

    public ThirdPartyStub observer(Observer observer) {
        this.observer = observer;
        return this;
    }

    /** The next requests about this order meet these steps, in order; after them, {@link Fault#NONE}. */
    public ThirdPartyStub script(String orderNumber, Step... steps) {
        scriptPerOrder
                .computeIfAbsent(orderNumber, k -> new ConcurrentLinkedDeque<>())
                .addAll(List.of(steps));
        return this;
    }

    /**
     * false: the stub behaves like a third party without idempotent create: every POST that reaches it creates a new
     * record, so a resend shows up as a second record.
     */
    public ThirdPartyStub idempotent(boolean idempotent) {
        this.idempotent = idempotent;
        return this;
    }

    /**
     * true: the lookup answers as a third party that lists what it found: {@code 200 {"items": []}} for no record,
     * {@code 200 {"items": [{"id": ...}]}} for one (false, the default: {@code 404}, or {@code 200 {"id": ...}}).
     */
    public ThirdPartyStub listLookup(boolean listLookup) {
        this.listLookup = listLookup;
        return this;
    }

    /** Every request meets this step (null: back to normal). */
    public void always(Step step) {
        this.always = step;
    }

    /** Drops every scripted fault not yet met, the {@link #always} step and the chooser: healthy again. */
    public void clearFaults() {
        scriptPerOrder.clear();
        always = null;
        faults = null;
    }

    /** Lets hanging requests answer now. */
    public void releaseHanging() {
        released.countDown();
    }

    /** Forgets the requests seen so far (a record created before the test's subject ran), keeping the records. */
    public void clearRequests() {
        requests.clear();
    }

    public List<Request> requests() {
        return new ArrayList<>(requests);
    }

    public long requestsFor(String orderNumber) {
        return requests.stream().filter(r -> orderNumber.equals(r.subject())).count();
    }

    /** A record made before the test (an order completed by an operator's hand), that adjustments may refer to. */
    public void seedRecord(String orderNumber, String recordId) {
        idsByOrder.put(orderNumber, recordId);
        recordSubjects.put(recordId, orderNumber);
    }

    /** Adjustment creates refused because the record they refer to did not exist yet. */
    public int adjustmentsBeforeTheirRecord() {
        return adjustmentsBeforeTheirRecord.get();
    }

    /** The order number or adjustment id whose record has this id, or null. */
    public String subjectOfRecord(String recordId) {
        return recordSubjects.get(recordId);
    }

    /** How many records were really created for the order (at most one if Paysync is right). */
    public int recordsFor(String orderNumber) {
        AtomicInteger n = createdPerOrder.get(orderNumber);
        return n == null ? 0 : n.get();
    }

    public int totalRecords() {
        return createdPerOrder.values().stream().mapToInt(AtomicInteger::get).sum();
    }

    public Map<String, AtomicInteger> recordsPerOrder() {
        return createdPerOrder;
    }

    public String idFor(String orderNumber) {
        return idsByOrder.get(orderNumber);
    }

    private void handle(HttpExchange ex) throws IOException {
        try (ex) {
            String body = new String(ex.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
            String method = ex.getRequestMethod();
            String key = ex.getRequestHeaders().getFirst("Idempotency-Key");
            boolean adjustment = ex.getRequestURI().getPath().endsWith("/adjustments");
            String orderNumber = null;
            String adjustmentId = null;
            String refersTo = null;
            String adjustedOrder = null;
            String reverses = null;
            String kind = null;
            String q = ex.getRequestURI().getRawQuery();
            if ("GET".equals(method) && adjustment) {
                adjustmentId = q != null && q.startsWith("adjustmentId=")
                        ? URLDecoder.decode(q.substring(13), StandardCharsets.UTF_8)
                        : null;
            } else if ("GET".equals(method)) {
                orderNumber = q != null && q.startsWith("orderNumber=")
                        ? URLDecoder.decode(q.substring(12), StandardCharsets.UTF_8)
                        : null;
            } else if (adjustment) {
                adjustmentId = find(ADJUSTMENT_ID, body);
                adjustedOrder = find(ORDER_NUMBER, body);
                refersTo = find(REFERS_TO, body);
                reverses = find(REVERSES, body);
                kind = find(KIND, body);
            } else {
                orderNumber = find(ORDER_NUMBER, body);
            }
            Map<String, List<String>> headers = new TreeMap<>();
            ex.getRequestHeaders()
                    .forEach((name, values) -> headers.put(name.toLowerCase(Locale.ROOT), List.copyOf(values)));
            Request request = new Request(
                    method,
                    orderNumber,
                    key,
                    body,
                    System.nanoTime(),
                    ex.getLocalAddress().getPort(),
                    ex.getRequestURI().toString(),
                    headers,
                    adjustmentId,
                    refersTo);
            requests.add(request);
            observer.received(request);
            String subject = request.subject();
            if ("GET".equals(method)) {
                String id = subject == null ? null : idsByOrder.get(subject);
                if (listLookup) {
                    answer(
                            ex,
                            request,
                            Fault.NONE,
                            200,
                            id == null ? "{\"items\":[]}" : "{\"items\":[{\"id\":\"" + id + "\"}]}",
                            null,
                            id,
                            false);
                    return;
                }
                answer(
                        ex,
                        request,
                        Fault.NONE,
                        id == null ? 404 : 200,
                        id == null ? "{\"error\":\"no record\"}" : "{\"id\":\"" + id + "\"}",
                        null,
                        id,
                        false);
                return;
            }
            if (key == null || subject == null || !key.equals(subject)) {
                answer(
                        ex,
                        request,
                        Fault.STATUS,
                        400,
                        "{\"error\":\"Idempotency-Key must be the order number (an adjustment's: its id)\"}",
                        null,
                        null,
                        false);
                return;
            }
            if (adjustment
                    && (refersTo == null
                            || recordSubjects.get(refersTo) == null
                            || !recordSubjects.get(refersTo).equals(adjustedOrder)
                            || (reverses != null && recordSubjects.get(reverses) == null)
                            || ("chargeback-reversed".equals(kind) && reverses == null))) {
                adjustmentsBeforeTheirRecord.incrementAndGet();
                answer(
                        ex,
                        request,
                        Fault.STATUS,
                        422,
                        "{\"error\":\"refersTo names no record of the adjustment's order (or reverses no record)\"}",
                        null,
                        null,
                        false);
                return;
            }
            orderNumber = subject;
            Step step = always;
            if (step == null) {
                Deque<Step> script = scriptPerOrder.get(orderNumber);
                step = script == null ? null : script.poll();
            }
            Function<Request, Step> chooser = faults;
            if (step == null && chooser != null) {
                step = chooser.apply(request);
            }
            if (step == null) {
                step = Step.ok();
            }
            Fault fault = step.fault();
            switch (fault) {
                case STATUS ->
                    answer(
                            ex,
                            request,
                            fault,
                            step.status(),
                            "{\"error\":\"injected " + step.status() + "\"}",
                            step.retryAfter(),
                            null,
                            false);
                case NON_JSON -> answer(ex, request, fault, 200, "<html>created?</html>", null, null, false);
                case NO_ID -> answer(ex, request, fault, 201, "{\"status\":\"ok\"}", null, null, false);
                case DROP -> observer.answered(new Answer(request, fault, 0, null, false, System.nanoTime()));
                case CREATE_THEN_DROP -> { // closing without headers: the client gets no answer
                    Created c = create(key, orderNumber);
                    observer.answered(new Answer(request, fault, 0, c.id, c.created, System.nanoTime()));
                }
                case HANG_THEN_CREATE -> {
                    try {
                        released.await(step.delayMs(), TimeUnit.MILLISECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    Created c = create(key, orderNumber);
                    answer(
                            ex,
                            request,
                            fault,
                            c.created ? 201 : 200,
                            "{\"id\":\"" + c.id + "\"}",
                            null,
                            c.id,
                            c.created);
                }
                case CREATE_THEN_HANG -> {
                    Created c = create(key, orderNumber);
                    try {
                        released.await(step.delayMs(), TimeUnit.MILLISECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    answer(
                            ex,
                            request,
                            fault,
                            c.created ? 201 : 200,
                            "{\"id\":\"" + c.id + "\"}",
                            null,
                            c.id,
                            c.created);
                }
                case NONE -> {
                    Created c = create(key, orderNumber);
                    answer(
                            ex,
                            request,
                            fault,
                            c.created ? 201 : 200,
                            "{\"id\":\"" + c.id + "\"}",
                            null,
                            c.id,
                            c.created);
                }
            }
        } catch (IOException e) {
            // The client went away (timed out or was killed): nothing to answer.
        }
    }

    /** Sends the answer, then tells the observer; an answer the client no longer reads still counts as sent. */
    private void answer(
            HttpExchange ex,
            Request request,
            Fault fault,
            int status,
            String body,
            String retryAfter,
            String recordId,
            boolean created)
            throws IOException {
        long at = System.nanoTime();
        try {
            respond(ex, status, body, retryAfter);
        } finally {
            observer.answered(new Answer(request, fault, status, recordId, created, at));
        }
    }

    private record Created(String id, boolean created) {}

    private static String find(Pattern pattern, String body) {
        Matcher m = pattern.matcher(body);
        return m.find() ? m.group(1) : null;
    }

    private Created create(String key, String orderNumber) {
        if (!idempotent) {
            String id = UUID.randomUUID().toString();
            createdPerOrder
                    .computeIfAbsent(orderNumber, o -> new AtomicInteger())
                    .incrementAndGet();
            idsByOrder.putIfAbsent(orderNumber, id);
            recordSubjects.put(id, orderNumber);
            return new Created(id, true);
        }
        boolean[] created = {false};
        String id = idsByKey.computeIfAbsent(key, k -> {
            created[0] = true;
            createdPerOrder
                    .computeIfAbsent(orderNumber, o -> new AtomicInteger())
                    .incrementAndGet();
            return UUID.randomUUID().toString();
        });
        idsByOrder.putIfAbsent(orderNumber, id);
        recordSubjects.put(id, orderNumber);
        return new Created(id, created[0]);
    }

    /** A JSON answer (with Retry-After when not null); shared by the test stubs. */
    static void respond(HttpExchange ex, int status, String body, String retryAfter) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        ex.getResponseHeaders().set("Content-Type", "application/json");
        if (retryAfter != null) {
            ex.getResponseHeaders().set("Retry-After", retryAfter);
        }
        ex.sendResponseHeaders(status, bytes.length);
        try (OutputStream out = ex.getResponseBody()) {
            out.write(bytes);
        }
    }

    @Override
    public void close() {
        released.countDown();
        server.stop(0);
        extraServers.forEach(s -> s.stop(0));
    }
}
