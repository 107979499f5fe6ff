package io.paysync;

import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;

/**
 * Settings read before Camel reads its properties, from the places Camel reads them in its order: the environment,
 * {@code -D}, ./application-&lt;profile&gt;.properties, ./application.properties (each file next to the jar, then the
 * copy built into it). Free of Camel classes, so that {@link HealthProbe}, whose class path is the jar alone, can use
 * it too.
 */
final class EarlySettings {

    /** A setting's value and where it was found, for messages that must say where a value came from. */
    record Found(String value, String source) {}

    private final Map<String, String> env;
    private final Properties system;
    private final Path workingDirectory;

    EarlySettings(Map<String, String> env, Properties system, Path workingDirectory) {
        this.env = env;
        this.system = system;
        this.workingDirectory = workingDirectory;
    }

    static EarlySettings ofThisProcess() {
        return new EarlySettings(System.getenv(), System.getProperties(), Path.of(""));
    }

    /**
     * The profile: {@code -Dcamel.main.profile}, then {@code CAMEL_MAIN_PROFILE}, then {@code camel.main.profile} in
     * ./application.properties, else {@code dev}.
     */
    String activeProfile() {
        String profile = system.getProperty("camel.main.profile");
        if (isBlank(profile)) {
            profile = env.get("CAMEL_MAIN_PROFILE");
        }
        if (isBlank(profile)) {
            profile = Optional.ofNullable(fileProperty("application.properties", "camel.main.profile"))
                    .map(Found::value)
                    .orElse(null);
        }
        return isBlank(profile) ? Paysync.DEFAULT_PROFILE : profile.trim();
    }

    /** {@code key}, trimmed, from the first place that sets it to something not blank. */
    Optional<Found> find(String key, String profile) {
        String envName = envName(key);
        String value = env.get(envName);
        if (!isBlank(value)) {
            return Optional.of(new Found(value.trim(), "environment variable " + envName));
        }
        value = system.getProperty(key);
        if (!isBlank(value)) {
            return Optional.of(new Found(value.trim(), "-D" + key));
        }
        Found found = fileProperty("application-" + profile + ".properties", key);
        if (found == null) {
            found = fileProperty("application.properties", key);
        }
        return Optional.ofNullable(found);
    }

    /** The environment variable Camel reads for a property: upper case, '.' and '-' turned into '_'. */
    static String envName(String key) {
        return key.toUpperCase(Locale.ROOT).replace('.', '_').replace('-', '_');
    }

    /** {@code key} in the file {@code name} of the working directory, else in the one built into the jar. */
    private Found fileProperty(String name, String key) {
        Path file = workingDirectory.resolve(name);
        if (Files.isRegularFile(file)) {
            try (Reader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
                String value = load(in).getProperty(key);
                if (!isBlank(value)) {
                    return new Found(value.trim(), key + " in ./" + name);
                }
            } catch (IOException e) {
                // Unreadable here, unreadable for Camel too, which then says so.
            }
        }
        try (InputStream in = EarlySettings.class.getResourceAsStream("/" + name)) {
            String value = in == null
                    ? null
                    : load(new InputStreamReader(in, StandardCharsets.UTF_8)).getProperty(key);
            return isBlank(value) ? null : new Found(value.trim(), key + " in the jar's " + name);
        } catch (IOException e) {
            return null;
        }
    }

    private static Properties load(Reader reader) throws IOException {
        Properties properties = new Properties();
        properties.load(reader);
        return properties;
    }

    static boolean isBlank(String s) {
        return s == null || s.isBlank();
    }
}
