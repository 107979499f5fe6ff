package io.paysync.support;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.sql.Connection;
import java.sql.DriverManager;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Skips a database suite, reported as skipped with the reason, when its server is not there: PostgreSQL unless it is
 * required ({@code CI=true} or {@code -Dpaysync.test.postgres=required}, when it must fail instead), SQL Server unless
 * {@code PAYSYNC_TEST_SQLSERVER_URL} is set.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@ExtendWith(DatabaseAvailable.Condition.class)
public @interface DatabaseAvailable {

    Kind value();

    enum Kind {
        POSTGRESQL,
        SQLSERVER
    }

    class Condition implements ExecutionCondition {
        @Override
        public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
            DatabaseAvailable a = context.getElement()
                    .map(e -> e.getAnnotation(DatabaseAvailable.class))
                    .orElse(null);
            if (a == null) {
                return ConditionEvaluationResult.enabled("no database condition");
            }
            if (a.value() == Kind.SQLSERVER) {
                String url = System.getenv("PAYSYNC_TEST_SQLSERVER_URL");
                return url == null || url.isBlank()
                        ? skipped("SQL Server suite SKIPPED: set PAYSYNC_TEST_SQLSERVER_URL (and _USER, _PASSWORD) to "
                                + "an empty SQL Server database to run the database suite against it")
                        : ConditionEvaluationResult.enabled("SQL Server at PAYSYNC_TEST_SQLSERVER_URL");
            }
            if (TestDatabase.postgresMode().equals("required")) {
                return ConditionEvaluationResult.enabled("PostgreSQL is required");
            }
            String url = TestDatabase.postgresAdminUrl();
            try (Connection c =
                    DriverManager.getConnection(url, TestDatabase.postgresUser(), TestDatabase.postgresPassword())) {
                return ConditionEvaluationResult.enabled("PostgreSQL at " + url);
            } catch (Exception e) {
                return skipped("PostgreSQL suite SKIPPED: no PostgreSQL at " + url + " (" + e.getMessage()
                        + "). Start it, or set PAYSYNC_TEST_POSTGRES_URL/_USER/_PASSWORD.");
            }
        }

        private static ConditionEvaluationResult skipped(String reason) {
            System.err.println("*** " + reason);
            return ConditionEvaluationResult.disabled(reason);
        }
    }
}
