package io.paysync.support;

import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.TestInstance;

/**
 * A suite whose tests share one runtime on one database, one subclass per database: starting a runtime takes seconds,
 * while emptying the tables before each test keeps the tests as independent as if each had its own. The runtime and
 * its database are closed after the last test, so a PostgreSQL database does not outlive its suite.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class OneRuntimeSuite {

    protected PaysyncInstance app;

    /** The database the runtime runs on, a new one: the subclass names which kind. */
    protected abstract TestDatabase createDatabase() throws Exception;

    /**
     * Settings over the test defaults, for a suite whose tests need a route or a timer on (an adapter, an inbox, a
     * metrics refresh). Called once, before the database is created.
     */
    protected Map<String, String> settings() throws Exception {
        return Map.of();
    }

    @BeforeAll
    void startRuntime() throws Exception {
        Map<String, String> settings = settings();
        app = PaysyncInstance.start(createDatabase(), settings);
    }

    @AfterAll
    void stopRuntime() throws Exception {
        if (app != null) {
            app.close();
            app.database().close();
        }
    }

    @BeforeEach
    void emptyTables() throws Exception {
        app.database().reset();
    }
}
