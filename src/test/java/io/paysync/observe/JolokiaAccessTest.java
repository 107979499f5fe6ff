package io.paysync.observe;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.paysync.config.InvalidSettingsException;
import io.paysync.support.PaysyncInstance;
import io.paysync.support.TestDatabase;
import io.paysync.support.WorkerProcess;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.camel.component.platform.http.plugin.DefaultJolokiaPlatformHttpPlugin;
import org.apache.camel.component.platform.http.plugin.JolokiaPlatformHttpPlugin;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The policy a Jolokia plugin is created with: per plugin, and refused outright when it cannot be read. */
class JolokiaAccessTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String READ_RUNTIME =
            "{\"type\":\"read\",\"mbean\":\"java.lang:type=Runtime\"," + "\"attribute\":\"SystemProperties\"}";
    private static final String READ_MEMORY =
            "{\"type\":\"read\",\"mbean\":\"java.lang:type=Memory\"," + "\"attribute\":\"HeapMemoryUsage\"}";

    @TempDir
    Path dir;

    private final List<DefaultJolokiaPlatformHttpPlugin> started = new ArrayList<>();

    @AfterEach
    void stopPlugins() {
        started.forEach(DefaultJolokiaPlatformHttpPlugin::stop);
    }

    @Test
    void should_give_each_plugin_its_own_policy_and_leave_no_global_setting_behind() throws Exception {
        JolokiaPlatformHttpPlugin prod = JolokiaAccess.plugin("classpath:/jolokia-access-prod.xml");
        JolokiaPlatformHttpPlugin open = JolokiaAccess.plugin(null);
        assertThat(System.getProperty("jolokia.policyLocation")).isNull();

        assertThat(post(prod, READ_RUNTIME).path("status").asInt()).isEqualTo(403);
        assertThat(post(prod, READ_MEMORY).path("status").asInt()).isEqualTo(200);
        assertThat(post(open, READ_RUNTIME).path("status").asInt()).isEqualTo(200);
    }

    @Test
    void should_refuse_to_start_with_a_policy_it_cannot_find() {
        assertThatThrownBy(() -> JolokiaAccess.plugin("classpath:/no-such-policy.xml"))
                .isInstanceOf(InvalidSettingsException.class)
                .hasMessageContaining(JolokiaAccess.POLICY_LOCATION)
                .hasMessageContaining("no-such-policy.xml");
        assertThatThrownBy(() ->
                        JolokiaAccess.plugin(dir.resolve("missing.xml").toUri().toString()))
                .isInstanceOf(InvalidSettingsException.class)
                .hasMessageContaining(JolokiaAccess.POLICY_LOCATION);
        assertThat(System.getProperty("jolokia.policyLocation")).isNull();
    }

    @Test
    void should_stop_a_prod_start_whose_policy_is_missing_and_say_which_setting() throws Exception {
        Map<String, String> env = new LinkedHashMap<>();
        env.put("CAMEL_MAIN_PROFILE", "prod");
        env.put("CAMEL_SERVER_PORT", String.valueOf(PaysyncInstance.freePort()));
        env.put("PAYSYNC_DB_URL", "jdbc:h2:file:" + dir.resolve("data/paysync") + ";DB_CLOSE_ON_EXIT=FALSE");
        env.put("PAYSYNC_DB_USERNAME", "sa");
        env.put("PAYSYNC_DB_PASSWORD", TestDatabase.H2_PASSWORD);
        env.put("PAYSYNC_GATEWAY_WEBHOOK_SECRET", PaysyncInstance.SECRET);
        env.put("PAYSYNC_ADMIN_TOKEN", PaysyncInstance.ADMIN_TOKEN);
        env.put("PAYSYNC_THIRD_PARTY_URL", "http://127.0.0.1:9/unused");
        env.put(
                "PAYSYNC_JOLOKIA_POLICY_LOCATION",
                dir.resolve("typo-access.xml").toUri().toString());
        try (WorkerProcess p = WorkerProcess.start(dir, env, Map.of())) {
            assertThat(p.waitFor(90)).as("exit code; output:%n%s", p.output()).isNotIn(0, -1);
            assertThat(p.output()).contains(JolokiaAccess.POLICY_LOCATION).contains("typo-access.xml");
            assertThat(dir.resolve("data"))
                    .as("nothing opened before the refusal")
                    .doesNotExist();
        }
    }

    @Test
    void should_refuse_to_start_with_a_policy_that_is_not_one() throws Exception {
        Path broken = dir.resolve("broken.xml");
        Files.writeString(broken, "<restrict><commands><command>read</command></restrict>");
        assertThatThrownBy(() -> JolokiaAccess.plugin(broken.toUri().toString()))
                .isInstanceOf(InvalidSettingsException.class)
                .hasMessageContaining(JolokiaAccess.POLICY_LOCATION);
    }

    @Test
    void should_use_a_policy_given_as_a_file_url() throws Exception {
        Path policy = dir.resolve("read-only.xml");
        Files.writeString(policy, "<restrict><commands><command>read</command></commands></restrict>");
        JolokiaPlatformHttpPlugin plugin = JolokiaAccess.plugin(policy.toUri().toString());
        assertThat(post(plugin, READ_RUNTIME).path("status").asInt()).isEqualTo(200);
        assertThat(post(plugin, "{\"type\":\"exec\",\"mbean\":\"java.lang:type=Memory\",\"operation\":\"gc()\"}")
                        .path("status")
                        .asInt())
                .isEqualTo(403);
    }

    private JsonNode post(JolokiaPlatformHttpPlugin plugin, String request) throws Exception {
        DefaultJolokiaPlatformHttpPlugin jolokia = (DefaultJolokiaPlatformHttpPlugin) plugin;
        if (!jolokia.isStarted()) {
            jolokia.start();
            started.add(jolokia);
        }
        Object answer = jolokia.getJolokiaRequestHandler()
                .handlePostRequest(
                        "/observe/jolokia",
                        new ByteArrayInputStream(request.getBytes(StandardCharsets.UTF_8)),
                        "UTF-8",
                        Map.of());
        return JSON.readTree(answer.toString());
    }
}
