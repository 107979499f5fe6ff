package io.paysync.settlement;

import java.io.IOException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * The files of the inbox that were finished (applied, or refused) but could not be filed away, because the folder
 * they go to is unusable: remembered by name, size and modification time, so that each is logged once and, while
 * that folder stays unusable, passed over at every look instead of being read, hashed and refused again. The same
 * name with another size or time is another file, taken anew. At most {@link #LIMIT} are remembered: an inbox
 * flooded with files no folder can take costs bounded memory, and a file forgotten is only looked at again.
 */
final class SettlementUnfiled {

    static final int LIMIT = 1000;

    /** A file that waits in the inbox: what it looked like, the folder it goes to, and why it could not go there. */
    record Entry(long size, FileTime modified, String folder, String reason) {

        boolean sameFile(BasicFileAttributes seen) {
            return seen.size() == size && seen.lastModifiedTime().equals(modified);
        }
    }

    private final Map<String, Entry> files = new LinkedHashMap<>(16, 0.75f, false) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Entry> eldest) {
            return size() > LIMIT;
        }
    };

    /** Remembers the file; returns whether it is news (not remembered already for this folder and reason). */
    synchronized boolean remember(String name, BasicFileAttributes seen, String folder, String reason) {
        Entry entry = new Entry(seen.size(), seen.lastModifiedTime(), folder, reason);
        return !entry.equals(files.put(name, entry));
    }

    /** The file as remembered, if it is the same file still; a changed file is forgotten. */
    synchronized Entry find(String name, BasicFileAttributes seen) {
        Entry entry = files.get(name);
        if (entry != null && !entry.sameFile(seen)) {
            files.remove(name);
            return null;
        }
        return entry;
    }

    /** Forgets the file (filed away, or gone); returns whether it was remembered. */
    synchronized boolean forget(String name) {
        return files.remove(name) != null;
    }

    /** How many remembered files still wait in the inbox; those gone from it (removed by hand) are forgotten. */
    synchronized int count(Path inbox) {
        files.keySet().removeIf(name -> gone(inbox.resolve(name)));
        return files.size();
    }

    /** For each folder some remembered file waits for, why it could not be filed there (the latest reason). */
    synchronized Map<String, String> reasons() {
        Map<String, String> reasons = new TreeMap<>();
        files.values().forEach(e -> reasons.put(e.folder(), e.reason()));
        return reasons;
    }

    private static boolean gone(Path path) {
        try {
            SettlementArchive.attributes(path);
            return false;
        } catch (NoSuchFileException e) {
            return true;
        } catch (IOException e) {
            return false;
        }
    }
}
