package io.paysync.settlement;

import io.paysync.config.InvalidSettingsException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.channels.SeekableByteChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributeView;
import java.nio.file.attribute.BasicFileAttributes;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import org.apache.commons.io.input.CloseShieldInputStream;

/**
 * The settlement folders on disk: the inbox and its checks, reading a file, its hash, and filing it away with its
 * report. Whoever may write into the inbox chooses what stands there (links, folders, pipes, names): nothing is read
 * through a link, and nothing is written anywhere but into the inbox's own {@code .done/} and {@code .failed/}.
 */
final class SettlementArchive {

    static final String DONE = ".done";
    static final String FAILED = ".failed";
    static final List<String> FOLDERS = List.of(DONE, FAILED);

    /** A file created anew: never one that is there already, nor through a link standing under its name. */
    private static final Set<OpenOption> NEW_FILE =
            Set.of(StandardOpenOption.WRITE, StandardOpenOption.CREATE_NEW, LinkOption.NOFOLLOW_LINKS);

    private SettlementArchive() {}

    /**
     * The folder a setting names, made absolute, created if missing, and readable and writable (why: what is moved or
     * written there); else the start is refused naming the setting.
     */
    static Path folder(String setting, String configured, String why) {
        Path folder = Path.of(configured).toAbsolutePath().normalize();
        try {
            Files.createDirectories(folder);
        } catch (IOException e) {
            throw new InvalidSettingsException(
                    List.of(setting + " (" + folder + ") is not a folder Paysync can " + "create: " + e.getMessage()));
        }
        if (!Files.isReadable(folder) || !Files.isWritable(folder)) {
            throw new InvalidSettingsException(
                    List.of(setting + " (" + folder + ") must be readable and writable: " + why));
        }
        return folder;
    }

    /**
     * The settlement inbox a setting names: as {@link #folder}, then by its real path (without a link in it, so that a
     * name in it is a file in it), with its {@code .done/} and {@code .failed/} created, or found to be folders of its
     * own; else the start is refused naming the setting.
     */
    static Path inbox(String setting, String configured) {
        Path folder = folder(setting, configured, "finished files move to its .done/ and .failed/ folders");
        Path inbox;
        try {
            inbox = folder.toRealPath();
        } catch (IOException e) {
            throw new InvalidSettingsException(
                    List.of(setting + " (" + folder + ") is not a folder Paysync can read: " + e.getMessage()));
        }
        String problem = archiveProblem(inbox);
        if (problem != null) {
            throw new InvalidSettingsException(
                    List.of(
                            setting + " (" + inbox + "): " + problem + "; finished files "
                                    + "are filed away only into folders of the inbox itself: remove it, and Paysync creates the folder"));
        }
        return inbox;
    }

    /**
     * Why a file cannot be filed into the inbox's {@code .done/} or {@code .failed/} (one is a link, not a folder, or
     * not writable), or null; a missing one is created (without following a link, which then stands in the way and is
     * found at the next look).
     */
    static String archiveProblem(Path inbox) {
        for (String name : FOLDERS) {
            String problem = folderProblem(inbox, name);
            if (problem != null) {
                return problem;
            }
        }
        return null;
    }

    /**
     * Why nothing can be filed into {@code name} ({@code .done} or {@code .failed}) of the inbox, or null: a symbolic
     * link (never written through), anything but a folder, a folder Paysync may not write into, or missing and not
     * creatable (a missing one is created, without following a link).
     */
    static String folderProblem(Path inbox, String name) {
        Path folder = inbox.resolve(name);
        try {
            BasicFileAttributes found =
                    Files.readAttributes(folder, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            if (found.isSymbolicLink()) {
                return name + " is a symbolic link";
            }
            if (!found.isDirectory()) {
                return name + " is not a folder";
            }
            if (!Files.isWritable(folder) || !Files.isExecutable(folder)) {
                return name + " is not writable by Paysync";
            }
        } catch (NoSuchFileException missing) {
            try {
                Files.createDirectory(folder);
            } catch (FileAlreadyExistsException made) {
                // By another instance, or by someone else: the next look tells.
            } catch (IOException e) {
                return name + " cannot be created (" + e.getMessage() + ")";
            }
        } catch (IOException e) {
            return name + " cannot be looked at (" + e.getMessage() + ")";
        }
        return null;
    }

    /** What the folder says of a file in it, without following a link; throws {@link NoSuchFileException} if gone. */
    static BasicFileAttributes attributes(Path path) throws IOException {
        return Files.readAttributes(path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
    }

    /**
     * Why the file is no settlement file, from what the folder says of it without opening it: a symbolic link (never
     * followed, wherever it points), anything but a regular file (a pipe would block its reader), or empty; else null.
     * Throws {@link NoSuchFileException} for a file that is gone (filed away by another instance).
     */
    static String notAFile(Path path) throws IOException {
        BasicFileAttributes found = Files.readAttributes(path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        if (found.isSymbolicLink()) {
            return "the file is a symbolic link, which is never followed";
        }
        if (!found.isRegularFile()) {
            return "the file is not a regular file";
        }
        if (found.size() == 0) {
            return "the file is empty";
        }
        return null;
    }

    /**
     * The file opened for reading without following a link: a link put in its place since {@link #notAFile} looked
     * fails to open. Everything read of the file (its hash, header and rows) is read through this one channel.
     */
    static FileChannel open(Path path) throws IOException {
        return FileChannel.open(path, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS);
    }

    /** The channel's content from its start, as a stream that leaves the channel open when it is closed. */
    static InputStream fromStart(FileChannel channel) throws IOException {
        channel.position(0);
        return CloseShieldInputStream.wrap(Channels.newInputStream(channel));
    }

    static String sha256(Path path) throws IOException {
        try (FileChannel channel = open(path)) {
            return sha256(channel);
        }
    }

    static String sha256(FileChannel channel) throws IOException {
        MessageDigest digest;
        try {
            digest = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
        channel.position(0);
        ByteBuffer buffer = ByteBuffer.allocate(64 * 1024);
        while (channel.read(buffer) != -1) {
            buffer.flip();
            digest.update(buffer);
            buffer.clear();
        }
        return HexFormat.of().formatHex(digest.digest());
    }

    /**
     * Moves the run's file to {@code .done/} or {@code .failed/} of {@code inbox} beside its report
     * {@code <name>.report.json}, under the name {@link SettlementRun#filedAs}; returns false when another instance
     * filed it away first. A name taken there already (the same name dropped again) gets the content's hash, then the
     * time, added before the extension. The report is written first under a temporary name and renamed once the file
     * has moved, so a report always stands beside its file.
     *
     * <p>
     * Whoever writes into the inbox may put a link where a folder, the report or the file is expected: every step is
     * taken relative to the inbox and the archive folder as opened without following a link ({@code openat}), so
     * nothing is written through a link, a link filed away moves as the link it is, and an archive folder that is a
     * link fails the filing. Where Java offers no such calls (Windows), each step checks the same, without following
     * links, just before it is taken.
     */
    static boolean fileAway(Path inbox, SettlementRun run) throws IOException {
        return fileAway(inbox, run, true);
    }

    /** As {@link #fileAway(Path, SettlementRun)}; {@code relative} false takes the Windows way, for its test. */
    static boolean fileAway(Path inbox, SettlementRun run, boolean relative) throws IOException {
        String folder = run.state.equals(SettlementClaims.DONE) ? DONE : FAILED;
        byte[] report = run.report.toJson().getBytes(StandardCharsets.UTF_8);
        if (relative) {
            try (DirectoryStream<Path> in = Files.newDirectoryStream(inbox)) {
                if (in instanceof SecureDirectoryStream<Path> from) {
                    try (SecureDirectoryStream<Path> to =
                            from.newDirectoryStream(Path.of(folder), LinkOption.NOFOLLOW_LINKS)) {
                        return fileAway(new Opened(from, to), run, report);
                    }
                }
            }
        }
        return fileAway(new Checked(inbox, inbox.resolve(folder)), run, report);
    }

    private static boolean fileAway(Archive archive, SettlementRun run, byte[] report) throws IOException {
        String target = freeName(archive, run);
        String pending = "." + target + ".report.json.tmp";
        archive.create(pending, report);
        try {
            archive.moveIn(run.fileName, target);
        } catch (NoSuchFileException e) {
            // Another instance filed the same file away first.
            archive.delete(pending);
            return false;
        }
        archive.rename(pending, target + ".report.json");
        return true;
    }

    private static String freeName(Archive archive, SettlementRun run) throws IOException {
        String name = run.filedAs;
        int dot = name.lastIndexOf('.');
        String base = dot > 0 ? name.substring(0, dot) : name;
        String ext = dot > 0 ? name.substring(dot) : "";
        String hash = run.sha256 == null ? "" : "." + run.sha256.substring(0, 12);
        List<String> candidates = new ArrayList<>(List.of(name));
        if (!hash.isEmpty()) {
            candidates.add(base + hash + ext);
        }
        candidates.add(base + hash + "." + System.currentTimeMillis() + ext);
        for (String candidate : candidates) {
            if (!archive.exists(candidate) && !archive.exists(candidate + ".report.json")) {
                return candidate;
            }
        }
        throw new FileAlreadyExistsException(name);
    }

    /** The archive folder a file is filed into, and the inbox it moves from; names are names in those folders. */
    private interface Archive {

        boolean exists(String name) throws IOException;

        /** A new file of that name; a leftover under the name (a file, or a link) is removed, never written through. */
        void create(String name, byte[] content) throws IOException;

        void moveIn(String inboxName, String name) throws IOException;

        void rename(String from, String to) throws IOException;

        void delete(String name) throws IOException;
    }

    /** The folders as opened, every step relative to them: what a link put in their place afterwards cannot change. */
    private record Opened(SecureDirectoryStream<Path> inbox, SecureDirectoryStream<Path> folder) implements Archive {

        @Override
        public boolean exists(String name) throws IOException {
            try {
                folder.getFileAttributeView(Path.of(name), BasicFileAttributeView.class, LinkOption.NOFOLLOW_LINKS)
                        .readAttributes();
                return true;
            } catch (NoSuchFileException e) {
                return false;
            }
        }

        @Override
        public void create(String name, byte[] content) throws IOException {
            delete(name);
            try (SeekableByteChannel out = folder.newByteChannel(Path.of(name), NEW_FILE)) {
                writeAll(out, content);
            }
        }

        @Override
        public void moveIn(String inboxName, String name) throws IOException {
            inbox.move(Path.of(inboxName), folder, Path.of(name));
        }

        @Override
        public void rename(String from, String to) throws IOException {
            folder.move(Path.of(from), folder, Path.of(to));
        }

        @Override
        public void delete(String name) throws IOException {
            try {
                folder.deleteFile(Path.of(name));
            } catch (NoSuchFileException e) {
                // Nothing to remove.
            }
        }
    }

    /** The folders by path, each step checking first that the archive folder is a folder and not a link. */
    private record Checked(Path inbox, Path folder) implements Archive {

        @Override
        public boolean exists(String name) throws IOException {
            checkFolder();
            return Files.exists(folder.resolve(name), LinkOption.NOFOLLOW_LINKS);
        }

        @Override
        public void create(String name, byte[] content) throws IOException {
            delete(name);
            checkFolder();
            try (SeekableByteChannel out = Files.newByteChannel(folder.resolve(name), NEW_FILE)) {
                writeAll(out, content);
            }
        }

        @Override
        public void moveIn(String inboxName, String name) throws IOException {
            checkFolder();
            Files.move(inbox.resolve(inboxName), folder.resolve(name), StandardCopyOption.ATOMIC_MOVE);
        }

        @Override
        public void rename(String from, String to) throws IOException {
            checkFolder();
            Files.move(
                    folder.resolve(from),
                    folder.resolve(to),
                    StandardCopyOption.ATOMIC_MOVE,
                    StandardCopyOption.REPLACE_EXISTING);
        }

        @Override
        public void delete(String name) throws IOException {
            checkFolder();
            Files.deleteIfExists(folder.resolve(name));
        }

        private void checkFolder() throws IOException {
            if (!Files.isDirectory(folder, LinkOption.NOFOLLOW_LINKS)) {
                throw new FileSystemException(
                        folder.toString(), null, "not a folder of the inbox (a link, or missing)");
            }
        }
    }

    private static void writeAll(SeekableByteChannel out, byte[] content) throws IOException {
        ByteBuffer buffer = ByteBuffer.wrap(content);
        while (buffer.hasRemaining()) {
            out.write(buffer);
        }
    }
}
