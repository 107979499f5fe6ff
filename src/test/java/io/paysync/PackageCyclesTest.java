package io.paysync;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The packages of {@code io.paysync} depend on each other in one direction only, so each can be read, changed and
 * tested with what it depends on and nothing that depends on it. A cycle fails here, naming its packages.
 */
class PackageCyclesTest {

    private static final Path SOURCES = Path.of("src/main/java/io/paysync");
    private static final Pattern USE = Pattern.compile("\\bio\\.paysync\\.(?:([a-z]+)\\.)?[A-Z]");

    /** Package to the packages its classes name (imports, and names written out in full). */
    static Map<String, Set<String>> dependencies() throws IOException {
        Map<String, Set<String>> uses = new TreeMap<>();
        try (Stream<Path> files = Files.walk(SOURCES)) {
            for (Path file : files.filter(f -> f.toString().endsWith(".java")).toList()) {
                Path dir = SOURCES.relativize(file.getParent());
                String from =
                        dir.toString().isEmpty() ? "(root)" : dir.toString().replace('/', '.');
                Set<String> to = uses.computeIfAbsent(from, k -> new TreeSet<>());
                Matcher m = USE.matcher(Files.readString(file));
                while (m.find()) {
                    String used = m.group(1) == null ? "(root)" : m.group(1);
                    if (!used.equals(from)) {
                        to.add(used);
                    }
                }
            }
        }
        return uses;
    }

    @Test
    void should_have_no_cycle_between_packages() throws IOException {
        Map<String, Set<String>> uses = dependencies();
        assertThat(uses).containsKeys("payment", "sync", "observe", "admin", "settlement");
        List<String> cycles = new ArrayList<>();
        for (String start : uses.keySet()) {
            findCycle(start, start, uses, new ArrayList<>(List.of(start)), new TreeSet<>(), cycles);
        }
        assertThat(cycles).as("package cycles").isEmpty();
    }

    private static void findCycle(
            String start,
            String at,
            Map<String, Set<String>> uses,
            List<String> path,
            Set<String> seen,
            List<String> cycles) {
        for (String next : uses.getOrDefault(at, Set.of())) {
            if (next.equals(start)) {
                cycles.add(String.join(" -> ", path) + " -> " + start);
            } else if (seen.add(next)) {
                path.add(next);
                findCycle(start, next, uses, path, seen, cycles);
                path.remove(path.size() - 1);
            }
        }
    }

    @Test
    void should_find_a_cycle_when_there_is_one() {
        List<String> cycles = new ArrayList<>();
        Map<String, Set<String>> uses = Map.of("a", Set.of("b"), "b", Set.of("c"), "c", Set.of("a"));
        findCycle("a", "a", uses, new ArrayList<>(List.of("a")), new TreeSet<>(), cycles);
        assertThat(cycles).containsExactly("a -> b -> c -> a");
    }
}
