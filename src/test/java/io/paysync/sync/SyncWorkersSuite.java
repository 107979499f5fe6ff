package io.paysync.sync;

import io.paysync.support.PaysyncInstance;
import io.paysync.support.TestDatabase;
import io.paysync.support.ThirdPartyStub;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/**
 * What the orders' and the adjustments' sync suites share: each test gets a new database and a new third-party stub,
 * and starts its own sync workers on them with fast timers and a breaker that does not open by chance; all of them are
 * closed after it. A test's workers and stub are its own, so that no request or row of one test reaches another's
 * assertions.
 */
abstract class SyncWorkersSuite {

    protected TestDatabase database;
    protected ThirdPartyStub stub;
    protected final List<PaysyncInstance> instances = new ArrayList<>();

    protected abstract TestDatabase createDatabase() throws Exception;

    /**
     * The suite's own worker settings over the shared fast timers: how many attempts and in-process retries its tests
     * count on.
     */
    protected abstract Map<String, String> suiteDefaults();

    @BeforeEach
    void setUp() throws Exception {
        database = createDatabase();
        stub = ThirdPartyStub.start();
    }

    @AfterEach
    void tearDown() throws Exception {
        for (PaysyncInstance i : instances) {
            i.close();
        }
        stub.close();
        database.close();
    }

    /** A worker with fast timers; extra settings override. */
    protected PaysyncInstance worker(Map<String, String> extra) throws Exception {
        return worker(extra, Map.of());
    }

    protected PaysyncInstance worker() throws Exception {
        return worker(Map.of());
    }

    /** As {@link #worker(Map)}, with beans bound before it starts (a test clock). */
    protected PaysyncInstance worker(Map<String, String> extra, Map<String, Object> beans) throws Exception {
        PaysyncInstance instance = PaysyncInstance.start(database, withDefaults(extra), beans);
        instances.add(instance);
        return instance;
    }

    /** Fast timers, the suite's defaults and a worker id of its own; extra settings override. */
    protected Map<String, String> withDefaults(Map<String, String> extra) {
        Map<String, String> props = new HashMap<>();
        props.put("paysync.sync.enabled", "true");
        props.put("paysync.third-party.url", stub.url());
        props.put("paysync.sync.period-ms", "50");
        props.put("paysync.sync.lease-seconds", "5");
        props.put("paysync.sync.backoff-base-ms", "50");
        props.put("paysync.sync.backoff-max-ms", "200");
        props.put("paysync.third-party.connect-timeout-ms", "500");
        props.put("paysync.third-party.response-timeout-ms", "1000");
        props.put("camel.resilience4j.minimumNumberOfCalls", "1000");
        props.put("camel.resilience4j.slidingWindowSize", "1000");
        props.putAll(suiteDefaults());
        props.put("paysync.sync.worker-id", "worker-" + (instances.size() + 1));
        props.putAll(extra);
        return props;
    }
}
