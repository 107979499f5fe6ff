package io.paysync.integrator;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A plain socket server that keeps each request exactly as the HTTP client wrote it (request line, headers in their
 * order and spelling, body), so a test can hold the third party's requests to recorded fixtures byte for byte. An HTTP
 * server library would normalise header names and lose their order; the third party sees both.
 *
 * <p>
 * The fixtures are under src/test/resources/third-party-requests/, with the Host header's port written as
 * {@value #PORT} and the JDK's version in User-Agent as {@value #JAVA}. Run a test with {@code -Dpaysync.record-requests=true} to write them again from the routes as they
 * are: only when a change to the requests is meant, and then read the diff.
 */
final class RawHttpRecorder implements AutoCloseable {

    static final String PORT = "{port}";

    /** The JDK's version in the HTTP client's User-Agent, which differs between machines, not between routes. */
    static final String JAVA = "{java}";

    private static final byte[] ANSWER = ("HTTP/1.1 201 Created\r\nContent-Type: application/json\r\n"
                    + "Content-Length: 15\r\nConnection: close\r\n\r\n{\"id\":\"rec-1\"}\n")
            .getBytes(StandardCharsets.US_ASCII);

    private final ServerSocket server;
    private final BlockingQueue<byte[]> received = new LinkedBlockingQueue<>();
    private final Thread acceptor;

    private RawHttpRecorder() throws IOException {
        server = new ServerSocket();
        server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        acceptor = new Thread(this::serve, "raw-http-recorder");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    static RawHttpRecorder start() {
        try {
            return new RawHttpRecorder();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    String url() {
        return "http://127.0.0.1:" + server.getLocalPort();
    }

    int port() {
        return server.getLocalPort();
    }

    /** The next request received, as its bytes; fails after a few seconds without one. */
    byte[] next() throws InterruptedException {
        byte[] request = received.poll(10, TimeUnit.SECONDS);
        assertThat(request).as("a request reached the server").isNotNull();
        return request;
    }

    void clear() {
        received.clear();
    }

    /** The request equals the fixture {@code name}, byte for byte but for the Host header's port and the JDK's version. */
    void assertMatches(String name, byte[] request) throws IOException {
        String host = "\r\nHost: 127.0.0.1:" + port() + "\r\n";
        String text = new String(request, StandardCharsets.ISO_8859_1);
        assertThat(text).as("the request names this server as Host").contains(host);
        byte[] normalised = text.replace(host, "\r\nHost: 127.0.0.1:" + PORT + "\r\n")
                .replaceFirst("(\r\nUser-Agent: [^\r]*\\(Java/)[^)\r]*\\)", "$1" + JAVA + ")")
                .getBytes(StandardCharsets.ISO_8859_1);
        Path fixture = Path.of("src/test/resources/third-party-requests", name + ".http");
        if (Boolean.getBoolean("paysync.record-requests")) {
            Files.createDirectories(fixture.getParent());
            Files.write(fixture, normalised);
            return;
        }
        try (InputStream in = RawHttpRecorder.class.getResourceAsStream("/third-party-requests/" + name + ".http")) {
            assertThat(in).as("fixture third-party-requests/" + name + ".http").isNotNull();
            byte[] expected = in.readAllBytes();
            assertThat(new String(normalised, StandardCharsets.ISO_8859_1))
                    .as("request " + name)
                    .isEqualTo(new String(expected, StandardCharsets.ISO_8859_1));
            assertThat(normalised).as("request " + name + " byte for byte").isEqualTo(expected);
        }
    }

    private void serve() {
        while (!server.isClosed()) {
            try (Socket socket = server.accept()) {
                socket.setSoTimeout(5000);
                received.add(read(socket.getInputStream()));
                OutputStream out = socket.getOutputStream();
                out.write(ANSWER);
                out.flush();
            } catch (IOException e) {
                if (server.isClosed()) {
                    return;
                }
            }
        }
    }

    /** The head up to its blank line, then the body its Content-Length or chunks say. */
    private static byte[] read(InputStream in) throws IOException {
        ByteArrayOutputStream all = new ByteArrayOutputStream();
        int matched = 0;
        byte[] end = {'\r', '\n', '\r', '\n'};
        while (matched < 4) {
            int b = in.read();
            if (b < 0) {
                return all.toByteArray();
            }
            all.write(b);
            matched = b == end[matched] ? matched + 1 : (b == '\r' ? 1 : 0);
        }
        String head = all.toString(StandardCharsets.ISO_8859_1).toLowerCase(Locale.ROOT);
        int length = 0;
        boolean chunked = false;
        for (String line : head.split("\r\n")) {
            if (line.startsWith("content-length:")) {
                length = Integer.parseInt(
                        line.substring("content-length:".length()).strip());
            } else if (line.startsWith("transfer-encoding:") && line.contains("chunked")) {
                chunked = true;
            }
        }
        if (chunked) {
            all.write(readChunks(in));
        } else {
            all.write(in.readNBytes(length));
        }
        return all.toByteArray();
    }

    private static byte[] readChunks(InputStream in) throws IOException {
        ByteArrayOutputStream raw = new ByteArrayOutputStream();
        while (true) {
            String size = readLine(in, raw);
            int n = Integer.parseInt(size.split(";")[0].strip(), 16);
            if (n == 0) {
                readLine(in, raw);
                return raw.toByteArray();
            }
            raw.write(in.readNBytes(n));
            readLine(in, raw);
        }
    }

    private static String readLine(InputStream in, ByteArrayOutputStream raw) throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        int b;
        while ((b = in.read()) >= 0) {
            raw.write(b);
            if (b == '\n') {
                break;
            }
            if (b != '\r') {
                line.write(b);
            }
        }
        return line.toString(StandardCharsets.ISO_8859_1);
    }

    @Override
    public void close() throws IOException {
        server.close();
    }
}
