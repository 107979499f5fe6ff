package io.paysync.settlement;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.camel.health.HealthCheckResultBuilder;
import org.apache.camel.impl.health.AbstractHealthCheck;

/**
 * The settlement inbox, as a readiness check that names what keeps finished files from being filed away: an archive
 * folder that is a link, no folder or not writable, and how many files wait in the inbox because of it. Always UP:
 * such a file holds up neither the files behind it nor callbacks, and taking the instance out of service would not
 * bring the folder back. The details name folders and reasons only, never the inbox's path or a file's name: health
 * is answered to anyone who reaches it.
 */
final class SettlementHealthCheck extends AbstractHealthCheck {

    private final SettlementFiles files;

    SettlementHealthCheck(SettlementFiles files) {
        super("paysync", "settlement-inbox");
        this.files = files;
    }

    @Override
    public boolean isLiveness() {
        return false;
    }

    @Override
    protected void doCall(HealthCheckResultBuilder builder, Map<String, Object> options) {
        int unfiled = files.unfiledCount();
        builder.detail("unfiled.files", unfiled);
        Map<String, String> folders = new TreeMap<>();
        for (String folder : SettlementArchive.FOLDERS) {
            String problem = files.folderProblem(folder);
            if (problem != null) {
                folders.put(folder, problem);
            }
        }
        // A move that failed while its folder looked usable (a full disk) is named by the files' own reason.
        files.unfiledReasons().forEach((folder, reason) -> folders.putIfAbsent(folder, folder + ": " + reason));
        List<String> problems = new ArrayList<>();
        folders.forEach((folder, problem) -> {
            builder.detail("folder" + folder, problem);
            problems.add(problem);
        });
        if (!problems.isEmpty()) {
            builder.message(String.join("; ", problems) + ": " + unfiled + " settlement file(s) finished but not filed"
                    + " away wait in the inbox; the other files are applied and filed as usual");
        }
        builder.up();
    }
}
