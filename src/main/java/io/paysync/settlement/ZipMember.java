package io.paysync.settlement;

import java.io.File;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.Charset;
import java.util.List;
import java.util.regex.Pattern;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;

/**
 * Opens the one member of a zip archive whose name matches a pattern, as a stream a route reads like a file of its own:
 * a gateway that delivers its report zipped (Alipay's bill) is then read as the unzipped report would be, row by row,
 * without unpacking it to disk. Configured from a route's bean properties: the pattern, and the charset of the names in
 * the archive (Alipay, like most Chinese tools, writes them in GBK without the zip's UTF-8 flag; a name that carries
 * the flag is read as UTF-8 whatever this says).
 */
public class ZipMember {

    private Pattern namePattern;
    private Charset namesCharset = Charset.forName("UTF-8");

    /** The whole name (path inside the archive included) the member must match, as a Java regular expression. */
    public void setNamePattern(String namePattern) {
        this.namePattern = Pattern.compile(namePattern);
    }

    public void setNamesCharset(String namesCharset) {
        this.namesCharset = Charset.forName(namesCharset);
    }

    /**
     * The matching member's content. Closing the stream closes the archive. An archive without exactly one matching
     * member is refused: none is not the report expected, and two would leave the choice to the order of the entries.
     */
    public InputStream open(File zip) throws IOException {
        if (namePattern == null) {
            throw new IllegalStateException("ZipMember needs its namePattern");
        }
        ZipFile archive = new ZipFile(zip, namesCharset);
        try {
            List<? extends ZipEntry> matching = archive.stream()
                    .filter(e -> !e.isDirectory())
                    .filter(e -> namePattern.matcher(e.getName()).matches())
                    .toList();
            if (matching.size() != 1) {
                throw new IllegalArgumentException("the archive holds " + matching.size()
                        + " files named like " + namePattern.pattern() + ", not one"
                        + (matching.isEmpty()
                                ? ""
                                : ": "
                                        + matching.stream()
                                                .map(ZipEntry::getName)
                                                .toList()));
            }
            return new FilterInputStream(archive.getInputStream(matching.get(0))) {
                @Override
                public void close() throws IOException {
                    try {
                        super.close();
                    } finally {
                        archive.close();
                    }
                }
            };
        } catch (IOException | RuntimeException e) {
            archive.close();
            throw e;
        }
    }
}
