package io.loomgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.testkit.JarProcess;
import java.io.BufferedInputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.zip.CRC32;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * 1 GiB each way through a gateway whose heap is capped at 64 MiB: it can only pass if bodies stream through fixed
 * buffers. Byte counts and CRC32 checksums are compared end to end.
 */
class LargeBodyIT {
    private static final long SIZE = 1L << 30;

    @Test
    void oneGibibyteDownloadAndUploadPassWithA64MiBHeap(@TempDir Path dir) throws Exception {
        AtomicLong uploadCount = new AtomicLong();
        AtomicLong uploadCrc = new AtomicLong();
        long expectedCrc = crcOfPattern(SIZE);
        try (ServerSocket origin = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            Thread.ofVirtual().start(() -> serveOrigin(origin, uploadCount, uploadCrc));
            Path yaml = dir.resolve("gateway.yaml");
            Files.writeString(yaml, "server:\n  address: 127.0.0.1\n  port: 0\nadmin:\n  port: 0\nroutes:\n"
                    + "  - id: big\n    uri: http://127.0.0.1:" + origin.getLocalPort() + "\n"
                    + "    predicates: [ \"Path=/**\" ]\n    timeout: 60s\n");
            try (JarProcess gw = JarProcess.start(List.of("-Xmx64m", "-XX:+UseSerialGC"),
                    List.of("serve", "--config", yaml.toString()), Map.of())) {
                int port = gw.awaitListening(Duration.ofSeconds(20));
                try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
                    s.setSoTimeout(60_000);
                    OutputStream out = s.getOutputStream();
                    InputStream in = new BufferedInputStream(s.getInputStream(), 65536);
                    // download
                    out.write("GET /download HTTP/1.1\r\nHost: h\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                    out.flush();
                    assertThat(readHead(in)).startsWith("HTTP/1.1 200").contains("Content-Length: " + SIZE);
                    CRC32 crc = new CRC32();
                    long n = copyCounting(in, SIZE, crc);
                    assertThat(n).isEqualTo(SIZE);
                    assertThat(crc.getValue()).isEqualTo(expectedCrc);
                    // upload, chunked, on the same connection
                    out.write("POST /upload HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n"
                            .getBytes(StandardCharsets.US_ASCII));
                    byte[] chunk = new byte[64 * 1024];
                    for (long sent = 0; sent < SIZE; sent += chunk.length) {
                        fillPattern(chunk, sent);
                        out.write((Integer.toHexString(chunk.length) + "\r\n").getBytes(StandardCharsets.US_ASCII));
                        out.write(chunk);
                        out.write("\r\n".getBytes(StandardCharsets.US_ASCII));
                    }
                    out.write("0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                    out.flush();
                    String head = readHead(in);
                    assertThat(head).startsWith("HTTP/1.1 200");
                    assertThat(uploadCount.get()).isEqualTo(SIZE);
                    assertThat(uploadCrc.get()).isEqualTo(expectedCrc);
                }
                assertThat(gw.output()).doesNotContain("OutOfMemoryError");
            }
        }
    }

    private static void serveOrigin(ServerSocket server, AtomicLong uploadCount, AtomicLong uploadCrc) {
        try (Socket s = server.accept()) {
            InputStream in = new BufferedInputStream(s.getInputStream(), 65536);
            OutputStream out = s.getOutputStream();
            readHead(in); // GET /download
            out.write(("HTTP/1.1 200 OK\r\nContent-Length: " + SIZE + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            byte[] chunk = new byte[64 * 1024];
            for (long sent = 0; sent < SIZE; sent += chunk.length) {
                fillPattern(chunk, sent);
                out.write(chunk);
            }
            out.flush();
            String head = readHead(in); // POST /upload, chunked
            if (!head.toLowerCase().contains("transfer-encoding: chunked")) {
                throw new IllegalStateException("upload not chunked: " + head);
            }
            CRC32 crc = new CRC32();
            long total = 0;
            while (true) {
                String line = readLine(in);
                int size = Integer.parseInt(line.split(";")[0].trim(), 16);
                if (size == 0) {
                    readLine(in);
                    break;
                }
                total += copyCounting(in, size, crc);
                readLine(in);
            }
            uploadCount.set(total);
            uploadCrc.set(crc.getValue());
            out.write("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            in.read(); // wait for the gateway to close
        } catch (Exception e) {
            // reported through the counters the test asserts
        }
    }

    private static long copyCounting(InputStream in, long size, CRC32 crc) throws java.io.IOException {
        byte[] buf = new byte[64 * 1024];
        long total = 0;
        while (total < size) {
            int n = in.read(buf, 0, (int) Math.min(buf.length, size - total));
            if (n < 0) {
                break;
            }
            crc.update(buf, 0, n);
            total += n;
        }
        return total;
    }

    /** Byte i of the stream is (i * 31 + i / 4096) mod 256: no two 64 KiB pieces alike. */
    private static void fillPattern(byte[] chunk, long offset) {
        for (int i = 0; i < chunk.length; i++) {
            long p = offset + i;
            chunk[i] = (byte) (p * 31 + p / 4096);
        }
    }

    private static long crcOfPattern(long size) {
        CRC32 crc = new CRC32();
        byte[] chunk = new byte[64 * 1024];
        for (long off = 0; off < size; off += chunk.length) {
            fillPattern(chunk, off);
            crc.update(chunk);
        }
        return crc.getValue();
    }

    private static String readHead(InputStream in) throws java.io.IOException {
        StringBuilder sb = new StringBuilder();
        for (String line; !(line = readLine(in)).isEmpty(); ) {
            sb.append(line).append('\n');
        }
        return sb.toString();
    }

    private static String readLine(InputStream in) throws java.io.IOException {
        StringBuilder sb = new StringBuilder();
        for (int c; (c = in.read()) != '\n'; ) {
            if (c < 0) {
                throw new java.io.EOFException("eof after " + sb);
            }
            if (c != '\r') {
                sb.append((char) c);
            }
        }
        return sb.toString();
    }
}
