package io.paysync.sync;

import static org.assertj.core.api.Assertions.assertThat;

import io.paysync.db.Dialect;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The claims' camel-sql endpoints carry their statement's parameter count, so camel-sql never asks the driver for
 * parameter metadata (a round trip of its own per claim on SQL Server). A count that differs from the statement's
 * parameters would fail every claim; a statement edited without its count is caught here, in every dialect.
 */
class ClaimParametersCountTest {

    private static final Pattern PARAMETER = Pattern.compile(":#");
    private static final Pattern COUNT = Pattern.compile("[?&]parametersCount=(\\d+)(?:&|$)");

    private static int parametersInFile(Dialect dialect, String name) {
        Matcher m = PARAMETER.matcher(dialect.sql(name));
        int n = 0;
        while (m.find()) {
            n++;
        }
        return n;
    }

    @Test
    void should_give_each_claim_endpoint_the_number_of_parameters_in_its_sql_file_in_every_dialect() {
        for (SyncTarget target : SyncTarget.values()) {
            for (Dialect dialect : Dialect.values()) {
                String uri = SyncRoutes.claimUri(target, dialect);
                Matcher count = COUNT.matcher(uri);

                assertThat(count.find()).as(uri).isTrue();
                assertThat(Integer.parseInt(count.group(1)))
                        .as(dialect + "/" + target.claimStatement())
                        .isPositive()
                        .isEqualTo(parametersInFile(dialect, target.claimStatement()));
            }
        }
    }

    @Test
    void should_count_a_parameter_each_time_it_appears() {
        assertThat(SyncRoutes.parametersCount("SELECT 1 WHERE a < :#now OR b < :#now AND c = :#max"))
                .isEqualTo(3);
    }
}
