package io.paysync.settlement;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What the inbox remembers of files it could not file away: the same file only, said once, and a bounded number. */
class SettlementUnfiledTest {

    @TempDir
    Path inbox;

    private BasicFileAttributes write(String name, String content) throws Exception {
        Path file = inbox.resolve(name);
        Files.writeString(file, content);
        Files.setLastModifiedTime(file, FileTime.from(Instant.parse("2026-01-01T00:00:00Z")));
        return SettlementArchive.attributes(file);
    }

    @Test
    void should_say_a_file_is_news_once_for_the_same_folder_and_reason() throws Exception {
        SettlementUnfiled unfiled = new SettlementUnfiled();
        BasicFileAttributes seen = write("a.csv", "x");

        assertThat(unfiled.remember("a.csv", seen, ".failed", ".failed is a symbolic link"))
                .isTrue();
        assertThat(unfiled.remember("a.csv", seen, ".failed", ".failed is a symbolic link"))
                .isFalse();
        assertThat(unfiled.remember("a.csv", seen, ".failed", ".failed is not a folder"))
                .isTrue();
        assertThat(unfiled.find("a.csv", seen)).isNotNull();
    }

    @Test
    void should_take_the_same_name_with_another_content_for_another_file() throws Exception {
        SettlementUnfiled unfiled = new SettlementUnfiled();
        unfiled.remember("a.csv", write("a.csv", "x"), ".done", ".done is a symbolic link");

        BasicFileAttributes replaced = write("a.csv", "a longer content");

        assertThat(unfiled.find("a.csv", replaced)).isNull();
        assertThat(unfiled.count(inbox)).isZero();
    }

    @Test
    void should_count_only_the_files_still_in_the_inbox() throws Exception {
        SettlementUnfiled unfiled = new SettlementUnfiled();
        unfiled.remember("a.csv", write("a.csv", "x"), ".failed", "r");
        unfiled.remember("b.csv", write("b.csv", "y"), ".failed", "r");

        Files.delete(inbox.resolve("a.csv"));

        assertThat(unfiled.count(inbox)).isEqualTo(1);
    }

    @Test
    void should_remember_no_more_than_its_limit_forgetting_the_oldest() throws Exception {
        SettlementUnfiled unfiled = new SettlementUnfiled();
        BasicFileAttributes seen = write("f.csv", "x");
        for (int i = 0; i <= SettlementUnfiled.LIMIT; i++) {
            unfiled.remember("f" + i + ".csv", seen, ".failed", "r");
        }

        assertThat(unfiled.find("f0.csv", seen)).as("the oldest, forgotten").isNull();
        assertThat(unfiled.find("f1.csv", seen)).isNotNull();
        assertThat(unfiled.find("f" + SettlementUnfiled.LIMIT + ".csv", seen)).isNotNull();
    }
}
