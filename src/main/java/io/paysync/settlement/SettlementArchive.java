package io.paysync.settlement;

import io.paysync.config.InvalidSettingsException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;

/** The settlement folders on disk: the inbox and its checks, a file's hash, and filing a file away with its report. */
final class SettlementArchive {

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

    static String sha256(Path path) throws IOException {
        MessageDigest digest;
        try {
            digest = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
        byte[] buffer = new byte[64 * 1024];
        try (InputStream in = Files.newInputStream(path)) {
            for (int n; (n = in.read(buffer)) > 0; ) {
                digest.update(buffer, 0, n);
            }
        }
        return HexFormat.of().formatHex(digest.digest());
    }

    /**
     * Moves the run's file to {@code .done/} or {@code .failed/} of {@code inbox} beside its report
     * {@code <name>.report.json}. A name taken there already (the same name dropped again) gets the content's hash,
     * then the time, added before the extension. The report is written first under a temporary name and renamed once
     * the file has moved, so a report always stands beside its file.
     */
    static void fileAway(Path inbox, SettlementRun run) throws IOException {
        Path folder = inbox.resolve(run.state.equals(SettlementClaims.DONE) ? ".done" : ".failed");
        Files.createDirectories(folder);
        Path target = freeName(folder, run);
        Path report = folder.resolve(target.getFileName() + ".report.json");
        Path pending = folder.resolve("." + target.getFileName() + ".report.json.tmp");
        Files.write(pending, run.report.toJson().getBytes(StandardCharsets.UTF_8));
        try {
            Files.move(run.path, target, StandardCopyOption.ATOMIC_MOVE);
        } catch (NoSuchFileException e) {
            // Another instance filed the same file away first.
            Files.deleteIfExists(pending);
            return;
        }
        Files.move(pending, report, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }

    private static Path freeName(Path folder, SettlementRun run) throws FileAlreadyExistsException {
        String name = run.fileName;
        int dot = name.lastIndexOf('.');
        String base = dot > 0 ? name.substring(0, dot) : name;
        String ext = dot > 0 ? name.substring(dot) : "";
        for (String candidate : List.of(
                name,
                base + "." + run.sha256.substring(0, 12) + ext,
                base + "." + run.sha256.substring(0, 12) + "." + System.currentTimeMillis() + ext)) {
            Path p = folder.resolve(candidate);
            if (!Files.exists(p) && !Files.exists(folder.resolve(candidate + ".report.json"))) {
                return p;
            }
        }
        throw new FileAlreadyExistsException(folder.resolve(name).toString());
    }
}
