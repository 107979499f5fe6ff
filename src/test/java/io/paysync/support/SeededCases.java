package io.paysync.support;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.SplittableRandom;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;

/**
 * Random test cases as JUnit 5 dynamic tests, each driven by a {@link Random} of its own seed.
 *
 * <p>
 * The base seed is the system property {@code paysync.test.seed} when it is given, otherwise the test class's own
 * fixed seed: CI runs the same cases every time, and a failure on one machine is a failure on every machine. Another
 * base seed explores other cases ({@code -Dpaysync.test.seed=<n>}; {@code -Dpaysync.test.cases=<n>} changes how many).
 *
 * <p>
 * The first case's seed is the base seed itself and every later case's seed is drawn from it. So a failing case, whose
 * seed is in its display name and in its failure message, runs again alone with {@code -Dpaysync.test.seed=<its
 * seed> -Dpaysync.test.cases=1}. A case must take every random choice from the {@code Random} it is given.
 */
public final class SeededCases {

    public static final String SEED = "paysync.test.seed";
    public static final String CASES = "paysync.test.cases";

    private SeededCases() {}

    @FunctionalInterface
    public interface Case {
        void run(Random random) throws Exception;
    }

    /**
     * {@code count} cases of {@code testClass} (fewer or more with {@code paysync.test.cases}), named
     * "{@code what} i of n, seed s".
     */
    public static Stream<DynamicTest> cases(Class<?> testClass, String what, int count, long fixedSeed, Case body) {
        Long given = Long.getLong(SEED);
        long base = given != null ? given : fixedSeed;
        int n = Integer.getInteger(CASES, count);
        SplittableRandom seeds = new SplittableRandom(base);
        List<Long> caseSeeds = new ArrayList<>();
        caseSeeds.add(base);
        while (caseSeeds.size() < n) {
            caseSeeds.add(seeds.nextLong());
        }
        System.out.printf(
                "%s: %d %ss from base seed %d (%s)%n",
                testClass.getSimpleName(), n, what, base, given != null ? "-D" + SEED : "the class's fixed seed");
        return IntStream.range(0, n).mapToObj(i -> {
            long seed = caseSeeds.get(i);
            String name = what + " " + (i + 1) + " of " + n + ", seed " + seed;
            return DynamicTest.dynamicTest(name, () -> {
                try {
                    body.run(new Random(seed));
                } catch (Throwable t) {
                    throw new AssertionError(
                            name + " failed. Run exactly this case again with: mvn -o test -Dtest="
                                    + testClass.getSimpleName() + " -D" + SEED + "=" + seed + " -D" + CASES + "=1\n"
                                    + t,
                            t);
                }
            });
        });
    }
}
