package io.paysync.settlement;

import java.nio.file.Path;

/**
 * A file being taken, applied and filed away, carried by the route's exchange from step to step; one consumer thread
 * uses it. {@code id}, {@code state}, {@code rowsDone} and {@code report} mirror the file's row in
 * {@code settlement_files} as this instance last wrote or read it.
 */
final class SettlementRun {

    final String fileName;
    final String sha256;
    final Path path;
    long id;
    String state;
    long rowsDone;
    SettlementReport report;

    SettlementRun(String fileName, String sha256, Path path) {
        this.fileName = fileName;
        this.sha256 = sha256;
        this.path = path;
    }
}
