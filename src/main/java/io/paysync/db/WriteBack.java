package io.paysync.db;

import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;

/**
 * Which conclusions the shop's own table learns (docs/adopting.md, "Write-back"): the transitions whose outbox row
 * {@link TransitionLog} writes in their own transaction. None unless the write-back is on.
 */
public record WriteBack(Set<String> conclusions) {

    /** The conclusions a shop's table can be told, by the transition that makes them. */
    public static final Set<String> KNOWN = Set.of("Paid", "Failed", "Expired", "Cancelled", "Completed");

    public static final WriteBack OFF = new WriteBack(Set.of());

    /**
     * The set named by {@code list} (comma-separated, any case); {@code null} for a name that is none of
     * {@link #KNOWN}, which the caller refuses with the setting's name.
     */
    public static WriteBack parse(String list) {
        Set<String> chosen = new TreeSet<>();
        for (String part : list.split(",")) {
            String name = part.strip();
            if (name.isEmpty()) {
                continue;
            }
            String known = KNOWN.stream()
                    .filter(k -> k.toLowerCase(Locale.ROOT).equals(name.toLowerCase(Locale.ROOT)))
                    .findFirst()
                    .orElse(null);
            if (known == null) {
                return null;
            }
            chosen.add(known);
        }
        return new WriteBack(Set.copyOf(chosen));
    }

    /**
     * The conclusion {@code e} makes that the shop's table is to learn, or null. What the shop's own writers did
     * (actor {@link TransitionLog#LEGACY}) is in its table already and is never written back.
     */
    public String conclusion(TransitionLog.Entry e) {
        if (conclusions.isEmpty() || TransitionLog.LEGACY.equals(e.cause().actor())) {
            return null;
        }
        // An order's payment or sync concludes; an adjustment's transitions are not the order's conclusions.
        boolean concludes = "payment".equals(e.machine())
                ? !"Pending".equals(e.to())
                : "sync".equals(e.machine()) && "Completed".equals(e.to());
        return concludes && conclusions.contains(e.to()) ? e.to() : null;
    }
}
