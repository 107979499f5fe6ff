package io.paysync.db;

import static org.assertj.core.api.Assertions.assertThat;

import io.paysync.support.PaysyncInstance;
import io.paysync.support.TestDatabase;
import java.io.StringWriter;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.Map;
import javax.sql.DataSource;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.Appender;
import org.apache.logging.log4j.core.Logger;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.appender.WriterAppender;
import org.apache.logging.log4j.core.layout.PatternLayout;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Which H2 URLs Paysync makes write every commit to the file, and what a started runtime then has in force. The crash
 * itself is {@link H2CrashTest}.
 */
class H2DurabilityTest {

    @TempDir
    Path dir;

    @Test
    void should_add_a_zero_write_delay_to_an_embedded_file_url_that_names_none() {
        assertThat(H2Durability.durableUrl("jdbc:h2:file:./data/paysync;DB_CLOSE_ON_EXIT=FALSE"))
                .isEqualTo("jdbc:h2:file:./data/paysync;DB_CLOSE_ON_EXIT=FALSE;WRITE_DELAY=0");
        assertThat(H2Durability.durableUrl("jdbc:h2:/var/lib/paysync/db"))
                .isEqualTo("jdbc:h2:/var/lib/paysync/db;WRITE_DELAY=0;DB_CLOSE_ON_EXIT=FALSE");
        assertThat(H2Durability.durableUrl("jdbc:h2:~/paysync;"))
                .isEqualTo("jdbc:h2:~/paysync;WRITE_DELAY=0;DB_CLOSE_ON_EXIT=FALSE");
        assertThat(H2Durability.durableUrl("JDBC:H2:./paysync;db_close_on_exit=true"))
                .isEqualTo("JDBC:H2:./paysync;db_close_on_exit=true;WRITE_DELAY=0");
    }

    @Test
    void should_keep_a_write_delay_the_user_asked_for_and_leave_memory_and_server_urls_alone() {
        for (String url : new String[] {
            "jdbc:h2:file:./db;write_delay=500;DB_CLOSE_ON_EXIT=FALSE",
            "jdbc:h2:./db;WRITE_DELAY = 0;DB_CLOSE_ON_EXIT=TRUE",
            "jdbc:h2:mem:x;DB_CLOSE_DELAY=-1",
            "jdbc:h2:tcp://db.example/paysync",
            "jdbc:h2:ssl://db/paysync"
        }) {
            assertThat(H2Durability.durableUrl(url)).as(url).isEqualTo(url);
        }
    }

    @Test
    void should_run_an_h2_file_named_by_the_user_with_every_commit_written_and_say_nothing() throws Exception {
        String log = startAndCaptureLog("jdbc:h2:file:" + dir.resolve("plain"), 0);
        assertThat(log).doesNotContain("WRITE_DELAY");
    }

    @Test
    void should_warn_once_at_start_when_the_user_asks_for_a_write_delay() throws Exception {
        String log = startAndCaptureLog("jdbc:h2:file:" + dir.resolve("delayed") + ";WRITE_DELAY=300", 300);
        assertThat(log)
                .containsOnlyOnce("WARN")
                .contains(
                        "up to 300 ms late (WRITE_DELAY=300)",
                        "acknowledged in the last 300 ms before a crash can be lost");
    }

    /** Starts Paysync on the URL, checks the write delay in force, and returns what io.paysync.db logged. */
    private static String startAndCaptureLog(String url, int expectedDelay) throws Exception {
        StringWriter captured = new StringWriter();
        LoggerContext ctx = (LoggerContext) LogManager.getContext(false);
        Appender appender = WriterAppender.newBuilder()
                .setName("h2-durability")
                .setTarget(captured)
                .setLayout(
                        PatternLayout.newBuilder().withPattern("%level %msg%n").build())
                .build();
        appender.start();
        Logger db = ctx.getLogger(Database.class.getName());
        db.addAppender(appender);
        try (PaysyncInstance app = PaysyncInstance.start(
                new TestDatabase() {
                    @Override
                    public String url() {
                        return url;
                    }

                    @Override
                    public String username() {
                        return "sa";
                    }

                    @Override
                    public String password() {
                        return "h2-durability-test";
                    }
                },
                Map.of())) {
            try (Connection c = app.bean("dataSource", DataSource.class).getConnection();
                    Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery("SELECT SETTING_VALUE FROM"
                            + " INFORMATION_SCHEMA.SETTINGS WHERE SETTING_NAME = 'WRITE_DELAY'")) {
                assertThat(rs.next()).isTrue();
                assertThat(rs.getString(1)).as("WRITE_DELAY in force").isEqualTo(String.valueOf(expectedDelay));
            }
        } finally {
            db.removeAppender(appender);
            appender.stop();
        }
        return captured.toString();
    }
}
