package io.paysync;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.paysync.support.PaysyncInstance;
import io.paysync.support.TestDatabase;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * The Dockerfile, checked as far as it can be without a Docker engine.
 *
 * <p>
 * The runtime stage copies {@code target/paysync.jar} and {@code target/lib} from the build stage. Checking that those
 * files exist would mean nothing here: in {@code mvn verify} this test runs in the test phase, before the package
 * phase builds them (a clean build would fail, a stale one would pass). So this test checks that the pom is what
 * produces exactly those paths (final name, dependency copy into {@code lib/} at package, manifest class path
 * {@code lib/}), and that everything the pom builds from is copied into the build stage; {@code .ci/run}, which runs
 * after {@code mvn verify}, then checks that every COPY source exists.
 */
class DockerfileTest {

    private static final Path DOCKERFILE = Path.of("Dockerfile");
    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void should_build_with_maven_and_run_on_a_jre() throws Exception {
        List<Stage> stages = stages();
        assertThat(stages).hasSizeGreaterThanOrEqualTo(2);
        assertThat(build().image).startsWith("maven:");
        assertThat(build().instructions("RUN"))
                .anySatisfy(r -> assertThat(r).contains("mvn").contains("package"));
        assertThat(runtime().image).contains("jre");
        assertThat(runtime().instructions("RUN")).noneSatisfy(r -> assertThat(r).contains("mvn"));
    }

    @Test
    void should_copy_into_the_build_stage_everything_the_pom_builds_from() throws Exception {
        List<String> copied = new ArrayList<>();
        for (String[] copy : build().copies()) {
            assertThat(copy[0]).as("COPY --from in the build stage").isNull();
            for (int i = 1; i < copy.length - 1; i++) {
                assertThat(Path.of(copy[i])).as("build stage COPY source").exists();
                copied.add(stripSlash(copy[i]));
            }
        }
        List<String> inputs = new ArrayList<>(List.of("pom.xml", "src"));
        Document pom = pom();
        NodeList resources = pom.getElementsByTagName("resource");
        for (int i = 0; i < resources.getLength(); i++) {
            Element resource = (Element) resources.item(i);
            String dir = text(resource, "directory")
                    .replace("${project.basedir}/", "")
                    .replace("${project.basedir}", "");
            NodeList includes = resource.getElementsByTagName("include");
            if (includes.getLength() == 0) {
                inputs.add(dir);
            }
            for (int j = 0; j < includes.getLength(); j++) {
                inputs.add((dir.isEmpty() ? "" : dir + "/")
                        + includes.item(j).getTextContent().trim());
            }
        }
        for (String input : inputs) {
            assertThat(copied)
                    .as("the pom builds the jar from %s, so the build stage must COPY it (copied: %s)", input, copied)
                    .anySatisfy(c -> assertThat(input.equals(c) || input.startsWith(c + "/"))
                            .isTrue());
        }
    }

    @Test
    void should_copy_into_the_runtime_stage_what_the_build_produces_and_the_mountable_files() throws Exception {
        Document pom = pom();
        String finalName = text((Element) pom.getElementsByTagName("build").item(0), "finalName");
        assertThat(finalName).isEqualTo("paysync");
        assertThat(pluginConfig(pom, "maven-jar-plugin", "classpathPrefix")).isEqualTo("lib/");
        assertThat(pluginConfig(pom, "maven-jar-plugin", "mainClass")).isEqualTo(Paysync.class.getName());
        assertThat(pluginConfig(pom, "maven-dependency-plugin", "goal")).isEqualTo("copy-dependencies");
        assertThat(pluginConfig(pom, "maven-dependency-plugin", "phase")).isEqualTo("package");
        assertThat(pluginConfig(pom, "maven-dependency-plugin", "outputDirectory"))
                .isEqualTo("${project.build.directory}/lib");

        String buildDir = stripSlash(build().workdir());
        List<String> fromBuild = new ArrayList<>();
        for (String[] copy : runtime().copies()) {
            String source = copy[1];
            String dest = copy[copy.length - 1];
            if ("build".equals(copy[0])) {
                assertThat(source).startsWith(buildDir + "/");
                fromBuild.add(source.substring(buildDir.length() + 1) + " -> " + dest);
            } else if ("hawtio".equals(copy[0])) {
                // The console's Vite build, where the runtime looks for it (paysync.hawtio.dir, relative to /app).
                assertThat(stage("hawtio").workdir() + "/dist").isEqualTo(source);
                assertThat(dest).isEqualTo("./hawtio/dist");
                assertThat(stage("hawtio").instructions("RUN"))
                        .anySatisfy(r -> assertThat(r).contains("npm ci"))
                        .anySatisfy(r -> assertThat(r).contains("npm run build"));
            } else {
                assertThat(Path.of(source)).as("runtime stage COPY source").exists();
            }
        }
        // The manifest's class path is lib/ next to the jar: both land side by side in the working directory.
        assertThat(fromBuild)
                .containsExactlyInAnyOrder("target/" + finalName + ".jar -> ./paysync.jar", "target/lib -> ./lib");
    }

    @Test
    void should_read_routes_and_settings_from_the_working_directory_where_they_can_be_mounted() throws Exception {
        Stage runtime = runtime();
        assertThat(runtime.workdir()).isEqualTo("/app");
        List<String> copies = runtime.copies().stream()
                .filter(c -> c[0] == null)
                .map(c -> c[1] + " -> " + c[2])
                .toList();
        assertThat(copies).contains("routes -> ./routes", "application.properties -> ./");
        // Relative to the working directory, so /app/routes and /app/application.properties are the ones read.
        Properties settings = new Properties();
        try (var in = Files.newBufferedReader(Path.of("application.properties"))) {
            settings.load(in);
        }
        assertThat(settings.getProperty("camel.main.routesIncludePattern")).startsWith("file:routes/");
    }

    @Test
    void should_run_as_a_user_other_than_root() throws Exception {
        Stage runtime = runtime();
        List<String> users = runtime.instructions("USER");
        assertThat(users).isNotEmpty();
        String user = users.get(users.size() - 1);
        assertThat(user).isNotIn("root", "0", "0:0");
        assertThat(runtime.instructions("RUN"))
                .anySatisfy(r -> assertThat(r).contains("useradd").endsWith(" " + user));
    }

    @Test
    void should_start_the_jar_with_java_jar() throws Exception {
        List<String> entrypoint = execForm(runtime().instructions("ENTRYPOINT").get(0));
        assertThat(entrypoint).containsExactly("java", "-jar", "/app/paysync.jar");
    }

    @Test
    void should_check_health_with_the_probe_where_the_image_settings_put_management() throws Exception {
        List<String> healthchecks = runtime().instructions("HEALTHCHECK");
        assertThat(healthchecks).hasSize(1);
        String cmd = healthchecks.get(0).substring(healthchecks.get(0).indexOf("CMD ") + 4);
        List<String> probe = execForm(cmd);
        // No URL: the probe works it out from the settings, so moving the management port moves the check too.
        assertThat(probe).containsExactly("java", "-cp", "/app/paysync.jar", HealthProbe.class.getName());
        Properties settings = new Properties();
        try (var in = Files.newBufferedReader(Path.of("application.properties"))) {
            settings.load(in);
        }
        // The image runs prod, where management (health among it) is on the API port + 1 unless set.
        int api = Integer.parseInt(settings.getProperty("camel.server.port"));
        assertThat(settings.getProperty("camel.management.port"))
                .as("not set in the image's settings")
                .isNull();
        assertThat(runtime().instructions("EXPOSE")).containsExactly(api + " " + (api + 1));
        URI url = HealthProbe.target(new EarlySettings(imageEnv(), new Properties(), Path.of("")))
                .url();
        assertThat(url).hasToString("http://127.0.0.1:" + (api + 1) + "/observe/health/live");

        try (PaysyncInstance app = PaysyncInstance.start(TestDatabase.h2())) {
            String served = app.baseUrl() + url.getPath();
            assertThat(HttpClient.newHttpClient()
                            .send(
                                    HttpRequest.newBuilder(URI.create(served)).build(),
                                    HttpResponse.BodyHandlers.discarding())
                            .statusCode())
                    .as(served)
                    .isEqualTo(200);
            String port = String.valueOf(URI.create(app.baseUrl()).getPort());
            assertThat(runProbe(Map.of("CAMEL_MANAGEMENT_PORT", port)).exit)
                    .as("probe on a healthy runtime whose management port was moved")
                    .isZero();
        }
        int closed = PaysyncInstance.freePort();
        Probe refused = runProbe(Map.of("CAMEL_MANAGEMENT_PORT", String.valueOf(closed)));
        assertThat(refused.exit).as("probe on a closed port").isNotZero();
        assertThat(refused.output)
                .contains("HealthProbe: connection refused on port " + closed)
                .contains("environment variable CAMEL_MANAGEMENT_PORT");
    }

    @Test
    void should_keep_the_data_folder_in_a_volume_owned_by_the_runtime_user() throws Exception {
        List<String[]> instructions = runtime().instructions();
        int chown = -1;
        int volume = -1;
        for (int i = 0; i < instructions.size(); i++) {
            String[] instruction = instructions.get(i);
            if (instruction[0].equals("RUN") && instruction[1].matches(".*chown -R paysync /app/data.*")) {
                chown = i;
            }
            if (instruction[0].equals("VOLUME") && instruction[1].strip().equals("/app/data")) {
                volume = i;
            }
        }
        assertThat(chown).as("the data folder made and given to paysync").isNotNegative();
        // A volume's contents are frozen where it is declared: the ownership must come first.
        assertThat(volume).as("VOLUME /app/data after the chown").isGreaterThan(chown);
    }

    @Test
    void should_leave_no_training_log_in_the_image() throws Exception {
        assertThat(runtime().instructions("RUN"))
                .filteredOn(r -> r.contains(" train"))
                .singleElement()
                .satisfies(r -> assertThat(r).doesNotContainPattern("[^2]>\\s*/"));
    }

    @Test
    void should_send_the_build_only_what_it_copies_and_no_dev_or_example_routes() throws Exception {
        List<String> ignore = Files.readAllLines(Path.of(".dockerignore")).stream()
                .map(String::strip)
                .filter(l -> !l.isEmpty() && !l.startsWith("#"))
                .toList();
        for (String left : List.of(
                "routes/dev/third-party-simulator.camel.yaml",
                "routes/examples/ledger/x.camel.yaml",
                "target/paysync.jar",
                "hawtio/node_modules/vite/package.json",
                "hawtio/dist/index.html",
                "console-test/node_modules/x.js",
                ".git/HEAD",
                "data/paysync.mv.db",
                "bench/b1-h2.sh",
                "docs/running.md")) {
            assertThat(ignored(ignore, left))
                    .as("left out of the build context: %s", left)
                    .isTrue();
        }
        // Everything the stages copy from the context reaches them.
        List<Path> copied = new ArrayList<>();
        for (Stage stage : stages()) {
            for (String[] copy : stage.copies()) {
                if (copy[0] != null) {
                    continue;
                }
                for (int i = 1; i < copy.length - 1; i++) {
                    Path source = Path.of(copy[i]);
                    try (var files = Files.walk(source)) {
                        files.filter(Files::isRegularFile)
                                .filter(f -> !f.toString().contains("node_modules"))
                                .forEach(copied::add);
                    }
                }
            }
        }
        assertThat(copied).isNotEmpty();
        for (Path file : copied) {
            String name = file.toString().replace('\\', '/');
            boolean devOrExample = name.startsWith("routes/dev/") || name.startsWith("routes/examples/");
            assertThat(ignored(ignore, name))
                    .as("%s %s", name, devOrExample ? "is left out" : "reaches the build")
                    .isEqualTo(devOrExample);
        }
    }

    /**
     * The .dockerignore rule: the last pattern that matches the path or a folder above it decides; {@code !} keeps.
     */
    private static boolean ignored(List<String> patterns, String path) {
        boolean ignored = false;
        for (String line : patterns) {
            boolean keep = line.startsWith("!");
            String pattern = stripSlash(keep ? line.substring(1) : line);
            PathMatcher matcher = FileSystems.getDefault().getPathMatcher("glob:" + pattern);
            for (Path p = Path.of(path); p != null; p = p.getParent()) {
                if (matcher.matches(p)) {
                    ignored = !keep;
                    break;
                }
            }
        }
        return ignored;
    }

    /** The environment the image sets (ENV in the runtime stage). */
    private static Map<String, String> imageEnv() throws IOException {
        Map<String, String> env = new HashMap<>();
        for (String e : runtime().instructions("ENV")) {
            String[] kv = e.split("[= ]", 2);
            env.put(kv[0], kv[1].strip());
        }
        return env;
    }

    record Probe(int exit, String output) {}

    /**
     * Runs the probe as the image does: a JVM whose class path is only our own classes (the image gives it just the
     * jar, whose manifest class path is not read with -cp), so it must need nothing from lib/; in a folder of its own
     * with the image's environment and {@code extraEnv}.
     */
    private static Probe runProbe(Map<String, String> extraEnv) throws IOException, InterruptedException {
        Path classes = Path.of(HealthProbe.class
                .getProtectionDomain()
                .getCodeSource()
                .getLocation()
                .getPath());
        ProcessBuilder builder = new ProcessBuilder(
                        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                        "-cp",
                        classes.toString(),
                        HealthProbe.class.getName())
                .redirectErrorStream(true)
                .directory(Files.createTempDirectory("probe").toFile());
        builder.environment().keySet().removeIf(k -> k.startsWith("CAMEL_") || k.startsWith("PAYSYNC_"));
        builder.environment().putAll(imageEnv());
        builder.environment().remove("JDK_JAVA_OPTIONS");
        builder.environment().putAll(extraEnv);
        Process p = builder.start();
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("HealthProbe did not finish within 60 s");
        }
        return new Probe(p.exitValue(), new String(p.getInputStream().readAllBytes()));
    }

    // ----- Dockerfile parsing: instructions, with line continuations joined and comments dropped -----

    record Stage(String image, String alias, List<String[]> instructions) {

        List<String> instructions(String keyword) {
            return instructions.stream()
                    .filter(i -> i[0].equals(keyword))
                    .map(i -> i[1])
                    .toList();
        }

        String workdir() {
            List<String> w = instructions("WORKDIR");
            return w.isEmpty() ? "/" : w.get(w.size() - 1);
        }

        /** Each COPY as [from stage or null, sources..., destination]. */
        List<String[]> copies() {
            List<String[]> copies = new ArrayList<>();
            for (String copy : instructions("COPY")) {
                List<String> words = new ArrayList<>(List.of(copy.trim().split("\\s+")));
                String from = null;
                while (words.get(0).startsWith("--")) {
                    String flag = words.remove(0);
                    if (flag.startsWith("--from=")) {
                        from = flag.substring("--from=".length());
                    }
                }
                List<String> entry = new ArrayList<>();
                entry.add(from);
                entry.addAll(words);
                copies.add(entry.toArray(new String[0]));
            }
            return copies;
        }
    }

    static Stage stage(String name) throws IOException {
        return stages().stream()
                .filter(s -> name.equals(s.alias()))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no stage " + name));
    }

    static List<Stage> stages() throws IOException {
        List<String> lines = new ArrayList<>();
        StringBuilder current = new StringBuilder();
        for (String raw : Files.readAllLines(DOCKERFILE)) {
            String line = raw.strip();
            if (line.startsWith("#") || (line.isEmpty() && current.length() == 0)) {
                continue;
            }
            if (line.endsWith("\\")) {
                current.append(line, 0, line.length() - 1).append(' ');
            } else {
                lines.add(current.append(line).toString().strip());
                current.setLength(0);
            }
        }
        List<Stage> stages = new ArrayList<>();
        for (String line : lines) {
            if (line.isEmpty()) {
                continue;
            }
            String keyword = line.split("\\s+", 2)[0].toUpperCase();
            String rest =
                    line.contains(" ") ? line.substring(line.indexOf(' ') + 1).strip() : "";
            if (keyword.equals("FROM")) {
                String[] words = rest.split("\\s+");
                stages.add(new Stage(
                        words[0],
                        words.length >= 3 && words[1].equalsIgnoreCase("AS") ? words[2] : null,
                        new ArrayList<>()));
            } else {
                assertThat(stages)
                        .as("instruction before the first FROM: %s", line)
                        .isNotEmpty();
                stages.get(stages.size() - 1).instructions().add(new String[] {keyword, rest});
            }
        }
        return stages;
    }

    static Stage build() throws IOException {
        List<Stage> stages = stages();
        Stage build = stages.get(0);
        assertThat(build.alias()).isEqualTo("build");
        return build;
    }

    static Stage runtime() throws IOException {
        List<Stage> stages = stages();
        return stages.get(stages.size() - 1);
    }

    private static List<String> execForm(String json) throws IOException {
        assertThat(json.strip())
                .as("exec form (a JSON array), so no shell is needed")
                .startsWith("[");
        return List.of(JSON.readValue(json.strip(), String[].class));
    }

    private static String stripSlash(String path) {
        String p = path.startsWith("./") ? path.substring(2) : path;
        return p.endsWith("/") ? p.substring(0, p.length() - 1) : p;
    }

    // ----- pom.xml -----

    private static Document pom() throws Exception {
        DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
        f.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
        return f.newDocumentBuilder().parse(Path.of("pom.xml").toFile());
    }

    private static String text(Element parent, String tag) {
        NodeList nodes = parent.getElementsByTagName(tag);
        return nodes.getLength() == 0 ? "" : nodes.item(0).getTextContent().trim();
    }

    /** The first element named {@code tag} inside the build plugin {@code artifactId} (not pluginManagement). */
    private static String pluginConfig(Document pom, String artifactId, String tag) {
        Element plugins = null;
        NodeList all = pom.getElementsByTagName("plugins");
        for (int i = 0; i < all.getLength(); i++) {
            if (!"pluginManagement".equals(all.item(i).getParentNode().getNodeName())) {
                plugins = (Element) all.item(i);
            }
        }
        assertThat(plugins).isNotNull();
        NodeList list = plugins.getElementsByTagName("plugin");
        for (int i = 0; i < list.getLength(); i++) {
            Element plugin = (Element) list.item(i);
            if (artifactId.equals(text(plugin, "artifactId"))) {
                return text(plugin, tag);
            }
        }
        throw new AssertionError("no build plugin " + artifactId + " in pom.xml");
    }
}
