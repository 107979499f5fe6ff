package io.paysync.support;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** Paysync in a JVM of its own, started as {@code java -jar} would start it, for tests that kill it. */
public final class WorkerProcess implements AutoCloseable {

    private final Process process;
    private final Path log;

    private WorkerProcess(Process process, Path log) {
        this.process = process;
        this.log = log;
    }

    /**
     * @param workDir its working directory (its ./application.properties, ./data)
     * @param env     environment variables; all others named PAYSYNC_* or CAMEL_* are removed. A {@code prod} run
     *                that names no shop token gets {@link PaysyncInstance#API_TOKEN}, and one that names no
     *                management port serves management on its API port, as the tests of everything but the doors
     *                expect (the doors' own test starts with {@link #startAsConfigured})
     * @param sysProps -D settings
     */
    public static WorkerProcess start(Path workDir, Map<String, String> env, Map<String, String> sysProps)
            throws IOException {
        return startAsConfigured(workDir, withTestDefaults(env), sysProps);
    }

    static Map<String, String> withTestDefaults(Map<String, String> env) {
        if (!"prod".equals(env.get("CAMEL_MAIN_PROFILE"))) {
            return env;
        }
        Map<String, String> withDefaults = new LinkedHashMap<>(env);
        withDefaults.putIfAbsent("PAYSYNC_API_TOKEN", PaysyncInstance.API_TOKEN);
        if (env.containsKey("CAMEL_SERVER_PORT")) {
            withDefaults.putIfAbsent("CAMEL_MANAGEMENT_PORT", env.get("CAMEL_SERVER_PORT"));
        }
        return withDefaults;
    }

    /** As {@link #start}, with exactly the environment given. */
    public static WorkerProcess startAsConfigured(Path workDir, Map<String, String> env, Map<String, String> sysProps)
            throws IOException {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        // A worker lives for seconds to minutes and most of its CPU goes to starting: the C1 compiler alone starts it
        // on about a third less CPU, which the other fork's tests on a two-core machine get back.
        cmd.add("-XX:TieredStopAtLevel=1");
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add("-Dcamel.main.routesIncludePattern=file:" + Path.of("routes").toAbsolutePath() + "/*.camel.yaml");
        cmd.add("-Dcamel.main.routesReloadEnabled=false");
        // The dev profile turns the WeChat Pay and Alipay adapters on against its simulators; these workers read no
        // adapter file (a test that wants one names it and its switch in sysProps, which come later and win).
        for (String adapter : new String[] {"alipay", "alipay.requests", "wechatpay"}) {
            cmd.add("-Dpaysync.adapters." + adapter + ".enabled=false");
        }
        cmd.add("-Dpaysync.third-party.templates="
                + Path.of("routes", "third-party").toAbsolutePath());
        sysProps.forEach((k, v) -> cmd.add("-D" + k + "=" + v));
        cmd.add("io.paysync.Paysync");
        Path log = workDir.resolve("out.log");
        ProcessBuilder pb = new ProcessBuilder(cmd)
                .directory(workDir.toFile())
                .redirectErrorStream(true)
                .redirectOutput(log.toFile());
        pb.environment().keySet().removeIf(k -> k.startsWith("PAYSYNC_") || k.startsWith("CAMEL_"));
        pb.environment().putAll(env);
        return new WorkerProcess(pb.start(), log);
    }

    /**
     * Paysync as an operator starts it: {@code java -jar} on the built jar, in an installation folder of its own (its
     * ./application.properties and ./routes), with only these PAYSYNC_* and CAMEL_* variables.
     */
    public static WorkerProcess startJar(Path installDir, Path jar, Map<String, String> env) throws IOException {
        List<String> cmd = List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-jar",
                jar.toAbsolutePath().toString());
        Path log = installDir.resolve("paysync.log");
        ProcessBuilder pb = new ProcessBuilder(cmd)
                .directory(installDir.toFile())
                .redirectErrorStream(true)
                .redirectOutput(log.toFile());
        pb.environment().keySet().removeIf(k -> k.startsWith("PAYSYNC_") || k.startsWith("CAMEL_"));
        pb.environment().putAll(withTestDefaults(env));
        return new WorkerProcess(pb.start(), log);
    }

    /** The environment of a {@code prod} worker on this database and port, calling this third party. */
    public static Map<String, String> prodEnv(TestDatabase db, int port, String thirdPartyUrl) {
        return prodEnv(db, db.url(), port, thirdPartyUrl);
    }

    /** As {@link #prodEnv(TestDatabase, int, String)} with another JDBC URL for the same database. */
    public static Map<String, String> prodEnv(TestDatabase db, String jdbcUrl, int port, String thirdPartyUrl) {
        return Map.of(
                "CAMEL_MAIN_PROFILE",
                "prod",
                "CAMEL_SERVER_PORT",
                String.valueOf(port),
                "PAYSYNC_DB_URL",
                jdbcUrl,
                "PAYSYNC_DB_USERNAME",
                db.username(),
                "PAYSYNC_DB_PASSWORD",
                db.password(),
                "PAYSYNC_GATEWAY_WEBHOOK_SECRET",
                PaysyncInstance.SECRET,
                "PAYSYNC_ADMIN_TOKEN",
                PaysyncInstance.ADMIN_TOKEN,
                "PAYSYNC_THIRD_PARTY_URL",
                thirdPartyUrl);
    }

    public Process process() {
        return process;
    }

    public String output() throws IOException {
        return Files.exists(log) ? Files.readString(log) : "";
    }

    /** Waits for the exit code, killing it after the timeout (-1 then). */
    public int waitFor(long seconds) throws InterruptedException {
        if (process.waitFor(seconds, TimeUnit.SECONDS)) {
            return process.exitValue();
        }
        process.destroyForcibly().waitFor();
        return -1;
    }

    /** kill -9: no shutdown hook, no graceful stop, connections dropped mid-call. */
    public void kill() throws InterruptedException {
        process.destroyForcibly().waitFor();
    }

    @Override
    public void close() throws InterruptedException {
        if (process.isAlive()) {
            process.destroy();
            if (!process.waitFor(20, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor();
            }
        }
    }
}
