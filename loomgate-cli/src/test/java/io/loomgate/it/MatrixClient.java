package io.loomgate.it;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;

/**
 * A traffic-matrix client: sends one request shaped as a cell asks and reports what came back. Three kinds:
 * {@link H1} on a raw socket (plain or TLS), which writes the framing itself (content-length or chunked) and can
 * abort mid-body; {@link Curl} for HTTP/2 (h2c with prior knowledge, or h2 by ALPN over TLS), nghttp2's framing
 * through curl, fed on its standard input so it can stream, drip and be killed mid-body; and {@link PyH2}, hyper-h2
 * in a Python script, for HTTP/2 full duplex (a piece, its echo, the next piece), which curl cannot do.
 */
interface MatrixClient {
    Duration IO_TIMEOUT = Duration.ofSeconds(Long.getLong("loomgate.matrix.io-timeout-seconds", 15));

    /** How the body leaves the client. */
    enum Shape {
        /** as fast as it goes */
        WHOLE,
        /** a piece, then wait until its echo came back, then the next piece */
        DUPLEX,
        /** small pieces with a pause between them */
        DRIP,
        /** a quarter of the announced body, then the connection is closed */
        ABORT,
        /**
         * as fast as it goes, and the response is read only once the whole body was written (HTTP/1.1; curl reads as
         * it sends): an early answer must survive the rest of the upload (a lingering close, not a reset)
         */
        WRITE_FIRST
    }

    /** The request: {@code length} bytes of {@link MatrixBodies#DATA}; {@code chunked} means "no length given". */
    record Send(String method, String path, String key, int length, boolean chunked, Shape shape) {
    }

    /**
     * What the client saw: the status (0: none), the response body's length and SHA-256, whether it ended as its
     * framing said it would, and the client-side error if any.
     */
    record Outcome(int status, long bytes, String sha256, boolean complete, String error, Duration took) {
    }

    /** The longest one exchange may take, however it moves. */
    Duration EXCHANGE_DEADLINE = Duration.ofSeconds(60);
    int DRIP_PIECES = 16;
    int DRIP_PIECE = 4 * 1024;
    Duration DRIP_PAUSE = Duration.ofMillis(25);
    int DUPLEX_PIECE = 16 * 1024;

    Outcome exchange(Send send) throws Exception;

    /** HTTP/1.1 on a raw socket, with TLS when {@code tls} is not null (no ALPN: the server picks http/1.1). */
    record H1(int port, SSLContext tls) implements MatrixClient {
        @Override
        public Outcome exchange(Send s) throws Exception {
            long t0 = System.nanoTime();
            Socket plain = new Socket();
            plain.connect(new InetSocketAddress("127.0.0.1", port), 5_000);
            plain.setTcpNoDelay(true);
            plain.setSoTimeout((int) IO_TIMEOUT.toMillis()); // the handshake's reads too
            Socket socket = plain;
            if (tls != null) {
                SSLSocket ssl = (SSLSocket) tls.getSocketFactory().createSocket(plain, "localhost", port, true);
                try {
                    ssl.startHandshake();
                } catch (IOException e) {
                    ssl.close();
                    throw new IOException("TLS handshake with the gateway: " + e, e);
                }
                socket = ssl;
            }
            // One deadline for the whole exchange: a transfer that crawls (but never stalls a read for IO_TIMEOUT)
            // still ends, and the cell fails instead of holding its lane.
            Socket closeAtDeadline = socket;
            Thread deadline = Thread.ofVirtual().name("matrix-h1-deadline").start(() -> {
                try {
                    Thread.sleep(EXCHANGE_DEADLINE);
                    closeAtDeadline.close();
                } catch (InterruptedException | IOException e) {
                    // the exchange ended first
                }
            });
            try (Socket sock = socket) {
                StringBuilder head = new StringBuilder(s.method() + " " + s.path() + " HTTP/1.1\r\nHost: localhost\r\n"
                        + "X-Matrix-Key: " + s.key() + "\r\n");
                if (s.length() > 0 || s.shape() != Shape.WHOLE) {
                    head.append(s.chunked() ? "Transfer-Encoding: chunked\r\n" : "Content-Length: " + s.length() + "\r\n");
                }
                head.append("\r\n");
                OutputStream out = sock.getOutputStream();
                out.write(head.toString().getBytes(StandardCharsets.ISO_8859_1));
                out.flush();
                Semaphore echoed = new Semaphore(0);
                AtomicReference<Throwable> writeError = new AtomicReference<>();
                Thread writer = Thread.ofVirtual().name("matrix-h1-writer").start(() -> {
                    try {
                        writeBody(s, out, echoed, sock);
                    } catch (Throwable e) {
                        writeError.set(e);
                    }
                });
                if (s.shape() == Shape.ABORT) {
                    writer.join(IO_TIMEOUT.toMillis());
                    return new Outcome(0, 0, null, false, "client aborted", Duration.ofNanos(System.nanoTime() - t0));
                }
                if (s.shape() == Shape.WRITE_FIRST) {
                    writer.join(IO_TIMEOUT.toMillis());
                }
                Outcome o;
                try {
                    o = readResponse(new BufferedInputStream(sock.getInputStream()), s.method(), echoed, t0);
                } catch (IOException e) {
                    o = new Outcome(0, 0, null, false, "no response: " + e, Duration.ofNanos(System.nanoTime() - t0));
                }
                writer.join(IO_TIMEOUT.toMillis());
                if (s.shape() == Shape.WRITE_FIRST && writeError.get() != null) {
                    return new Outcome(o.status(), o.bytes(), o.sha256(), false, "the upload failed: "
                            + writeError.get() + " / " + o.error(), o.took());
                }
                return o;
            } finally {
                deadline.interrupt();
            }
        }

        private static void writeBody(Send s, OutputStream out, Semaphore echoed, Socket sock) throws Exception {
            byte[] d = MatrixBodies.DATA;
            switch (s.shape()) {
                case WHOLE, WRITE_FIRST -> {
                    for (int off = 0; off < s.length(); off += 64 * 1024) {
                        piece(out, d, off, Math.min(64 * 1024, s.length() - off), s.chunked());
                    }
                }
                case DUPLEX -> {
                    for (int off = 0; off < s.length(); off += DUPLEX_PIECE) {
                        int n = Math.min(DUPLEX_PIECE, s.length() - off);
                        piece(out, d, off, n, s.chunked());
                        out.flush();
                        if (!echoed.tryAcquire(n, IO_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                            throw new IOException("the echo of bytes " + off + ".." + (off + n) + " did not come back");
                        }
                    }
                }
                case DRIP -> {
                    for (int off = 0; off < s.length(); off += DRIP_PIECE) {
                        Thread.sleep(DRIP_PAUSE); // the deliberate slowness of this cell
                        piece(out, d, off, Math.min(DRIP_PIECE, s.length() - off), s.chunked());
                        out.flush();
                    }
                }
                case ABORT -> {
                    piece(out, d, 0, s.length() / 4, s.chunked());
                    out.flush();
                    sock.setSoLinger(true, 0); // a reset, as a client that crashed or lost its network
                    sock.close();
                    return;
                }
            }
            if (s.chunked()) {
                out.write("0\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
            }
            out.flush();
        }

        private static void piece(OutputStream out, byte[] d, int off, int n, boolean chunked) throws IOException {
            if (chunked) {
                out.write((Integer.toHexString(n) + "\r\n").getBytes(StandardCharsets.ISO_8859_1));
            }
            out.write(d, off, n);
            if (chunked) {
                out.write("\r\n".getBytes(StandardCharsets.ISO_8859_1));
            }
        }

        private static Outcome readResponse(InputStream in, String method, Semaphore echoed, long t0)
                throws IOException {
            String status;
            List<String[]> fields;
            do {
                status = line(in);
                if (status == null) {
                    return new Outcome(0, 0, null, false, "closed before a response",
                            Duration.ofNanos(System.nanoTime() - t0));
                }
                fields = new ArrayList<>();
                for (String l; !(l = line(in)).isEmpty(); ) {
                    int c = l.indexOf(':');
                    fields.add(new String[] {l.substring(0, c).trim().toLowerCase(Locale.ROOT), l.substring(c + 1).trim()});
                }
            } while (status.split(" ")[1].startsWith("1"));
            int code = Integer.parseInt(status.split(" ")[1]);
            MessageDigest sha = sha();
            long total = 0;
            boolean complete;
            String error = null;
            String te = first(fields, "transfer-encoding");
            String cl = first(fields, "content-length");
            byte[] buf = new byte[64 * 1024];
            try {
                if (method.equals("HEAD") || code == 204 || code == 304) {
                    complete = true;
                } else if (te != null && te.toLowerCase(Locale.ROOT).contains("chunked")) {
                    while (true) {
                        String size = line(in);
                        if (size == null) {
                            throw new IOException("closed inside the chunked body");
                        }
                        int semi = size.indexOf(';');
                        int n = Integer.parseInt((semi < 0 ? size : size.substring(0, semi)).trim(), 16);
                        if (n == 0) {
                            while (true) {
                                String t = line(in);
                                if (t == null) {
                                    throw new IOException("closed inside the trailer section");
                                }
                                if (t.isEmpty()) {
                                    break;
                                }
                            }
                            break;
                        }
                        for (int left = n; left > 0; ) {
                            int k = in.read(buf, 0, Math.min(buf.length, left));
                            if (k < 0) {
                                throw new IOException("closed inside a chunk");
                            }
                            sha.update(buf, 0, k);
                            total += k;
                            left -= k;
                            echoed.release(k);
                        }
                        line(in);
                    }
                    complete = true;
                } else if (cl != null) {
                    long want = Long.parseLong(cl);
                    while (total < want) {
                        int k = in.read(buf, 0, (int) Math.min(buf.length, want - total));
                        if (k < 0) {
                            throw new IOException("closed after " + total + " of " + want + " bytes");
                        }
                        sha.update(buf, 0, k);
                        total += k;
                        echoed.release(k);
                    }
                    complete = true;
                } else {
                    for (int k; (k = in.read(buf)) >= 0; ) {
                        sha.update(buf, 0, k);
                        total += k;
                        echoed.release(k);
                    }
                    complete = true;
                }
            } catch (IOException e) {
                complete = false;
                error = e.toString();
            }
            return new Outcome(code, total, HexFormat.of().formatHex(sha.digest()), complete, error,
                    Duration.ofNanos(System.nanoTime() - t0));
        }

        private static String first(List<String[]> fields, String name) {
            return fields.stream().filter(f -> f[0].equals(name)).map(f -> f[1]).findFirst().orElse(null);
        }

        /** A CRLF line, or null at the end of the stream. */
        private static String line(InputStream in) throws IOException {
            ByteArrayOutputStream b = new ByteArrayOutputStream();
            for (int c; (c = in.read()) >= 0; ) {
                if (c == '\n') {
                    String s = b.toString(StandardCharsets.ISO_8859_1);
                    return s.endsWith("\r") ? s.substring(0, s.length() - 1) : s;
                }
                b.write(c);
            }
            return b.size() == 0 ? null : b.toString(StandardCharsets.ISO_8859_1);
        }
    }

    /**
     * HTTP/2 through curl: {@code --http2-prior-knowledge} for h2c, {@code --http2} with the test CA for TLS. Bodies
     * of known length go as {@code --data-binary @file} (curl sends content-length); the others through standard
     * input ({@code -T -}: no content-length, DATA frames as the bytes come).
     */
    record Curl(int port, Path caCert, Path bodies) implements MatrixClient {
        /** Writes the files curl uploads from, one per length used, under {@code dir}. */
        static Path writeBodies(Path dir, int... lengths) throws IOException {
            for (int n : lengths) {
                Files.write(dir.resolve("body-" + n), java.util.Arrays.copyOf(MatrixBodies.DATA, n));
            }
            return dir;
        }

        @Override
        public Outcome exchange(Send s) throws Exception {
            long t0 = System.nanoTime();
            List<String> cmd = new ArrayList<>(List.of("curl", "-sS", "-N", "--max-time", Long.toString(EXCHANGE_DEADLINE.toSeconds()), "-H", "Expect:",
                    "-H", "X-Matrix-Key: " + s.key(), "-o", "-", "-w", "%{stderr}\n@@status=%{http_code}\n"));
            String base;
            if (caCert == null) {
                cmd.add("--http2-prior-knowledge");
                base = "http://127.0.0.1:" + port;
            } else {
                cmd.addAll(List.of("--http2", "--cacert", caCert.toString()));
                base = "https://127.0.0.1:" + port;
            }
            boolean stdin = s.chunked() || s.shape() != Shape.WHOLE && s.shape() != Shape.WRITE_FIRST;
            if (s.length() > 0 || s.shape() != Shape.WHOLE) {
                cmd.addAll(stdin ? List.of("-X", s.method(), "-T", "-")
                        : List.of("-X", s.method(), "--data-binary", "@" + bodies.resolve("body-" + s.length())));
            } else {
                cmd.addAll(List.of("-X", s.method()));
            }
            cmd.add(base + s.path());
            Path err = Files.createTempFile("matrix-curl-", ".err");
            Process p = new ProcessBuilder(cmd).redirectError(err.toFile()).start();
            try {
                Semaphore echoed = new Semaphore(0);
                AtomicReference<Throwable> writeError = new AtomicReference<>();
                Thread writer = Thread.ofVirtual().name("matrix-curl-writer").start(() -> {
                    try (OutputStream out = p.getOutputStream()) {
                        if (stdin) {
                            feed(s, out, echoed, p);
                        }
                    } catch (Throwable e) {
                        writeError.set(e);
                    }
                });
                MessageDigest sha = sha();
                long total = 0;
                try (InputStream in = p.getInputStream()) {
                    byte[] buf = new byte[64 * 1024];
                    for (int k; (k = in.read(buf)) >= 0; ) {
                        sha.update(buf, 0, k);
                        total += k;
                        echoed.release(k);
                    }
                }
                if (!p.waitFor(IO_TIMEOUT.toSeconds() * 2, TimeUnit.SECONDS)) {
                    p.destroyForcibly();
                    throw new IOException("curl did not end: " + cmd);
                }
                writer.join(IO_TIMEOUT.toMillis());
                String stderr = Files.readString(err);
                Duration took = Duration.ofNanos(System.nanoTime() - t0);
                if (s.shape() == Shape.ABORT) {
                    return new Outcome(0, 0, null, false, "client aborted", took);
                }
                int at = stderr.lastIndexOf("@@status=");
                int code = at < 0 ? 0 : Integer.parseInt(stderr.substring(at + 9).trim());
                boolean complete = p.exitValue() == 0 && writeError.get() == null;
                return new Outcome(code, total, HexFormat.of().formatHex(sha.digest()), complete,
                        complete ? null : "curl exit " + p.exitValue() + ": " + stderr.strip() + " / writer: "
                                + writeError.get(), took);
            } finally {
                p.destroyForcibly();
                Files.deleteIfExists(err);
            }
        }

        private static void feed(Send s, OutputStream out, Semaphore echoed, Process p) throws Exception {
            byte[] d = MatrixBodies.DATA;
            switch (s.shape()) {
                case WHOLE, WRITE_FIRST -> out.write(d, 0, s.length());
                case DUPLEX -> throw new IllegalArgumentException("curl cannot stream full duplex (it blocks on its "
                        + "input in its one event loop): PyH2 does");
                case DRIP -> {
                    for (int off = 0; off < s.length(); off += DRIP_PIECE) {
                        Thread.sleep(DRIP_PAUSE); // the deliberate slowness of this cell
                        out.write(d, off, Math.min(DRIP_PIECE, s.length() - off));
                        out.flush();
                    }
                }
                case ABORT -> {
                    out.write(d, 0, s.length() / 4);
                    out.flush();
                    // curl reads its input as it comes: wait until the origin could have seen some of it, then
                    // kill it (no END_STREAM, no RST_STREAM: the connection just ends)
                    Thread.sleep(200);
                    p.destroyForcibly();
                }
            }
        }
    }

    /**
     * HTTP/2 full duplex through hyper-h2, Python's HTTP/2 library (Debian: python3-h2), for the full-duplex cells:
     * curl reads its standard input with a blocking read in its one event loop, and the JDK HttpClient hands the
     * response to its body handler only once the request body was all sent, so neither can wait for a piece's echo
     * before sending the next. The script ({@value #SCRIPT}) sends a piece, reads until it came back, sends the next,
     * honouring flow control both ways; h2c with prior knowledge, or TLS with ALPN h2 verified against the test CA.
     *
     * @param python an interpreter that imports {@code h2} ({@link #findPython})
     * @param script the script, copied out of the test resources
     */
    record PyH2(int port, Path caCert, String python, Path script) implements MatrixClient {
        static final String SCRIPT = "/matrix/h2_duplex_client.py";
        /** What a missing module says: the same words as {@code TestPki.requireTool}. */
        static final String MISSING = "'python3-h2' is not installed (Debian package; .ci/run installs it)";

        /**
         * The first of {@code python3} on PATH and Debian's {@code /usr/bin/python3} (where python3-h2 installs, which
         * a pyenv or venv python3 ahead on PATH does not see) that imports {@code h2}; null if none does.
         */
        static String findPython() {
            for (String python : List.of("python3", "/usr/bin/python3")) {
                try {
                    Process p = new ProcessBuilder(python, "-c", "import h2").redirectErrorStream(true).start();
                    p.getOutputStream().close();
                    p.getInputStream().readAllBytes();
                    if (p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0) {
                        return python;
                    }
                    p.destroyForcibly();
                } catch (IOException e) {
                    // not there: try the next
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return null;
                }
            }
            return null;
        }

        /** Copies the script into {@code dir} (a resource inside a jar cannot be run in place). */
        static Path copyScript(Path dir) throws IOException {
            Path to = dir.resolve("h2_duplex_client.py");
            try (InputStream in = PyH2.class.getResourceAsStream(SCRIPT)) {
                if (in == null) {
                    throw new IOException("test resource " + SCRIPT + " is missing");
                }
                Files.copy(in, to, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            }
            return to;
        }

        @Override
        public Outcome exchange(Send s) throws Exception {
            if (s.shape() != Shape.DUPLEX) {
                throw new IllegalArgumentException("the hyper-h2 client is used for the full-duplex cells only");
            }
            long t0 = System.nanoTime();
            List<String> cmd = new ArrayList<>(List.of(python, script.toString(), "--port", Integer.toString(port),
                    "--method", s.method(), "--path", s.path(), "--key", s.key(),
                    "--piece", Integer.toString(DUPLEX_PIECE),
                    "--io-timeout", Long.toString(IO_TIMEOUT.toSeconds()),
                    "--deadline", Long.toString(EXCHANGE_DEADLINE.toSeconds())));
            if (caCert != null) {
                cmd.addAll(List.of("--tls", "--cacert", caCert.toString()));
            }
            Path err = Files.createTempFile("matrix-h2py-", ".err");
            Process p = new ProcessBuilder(cmd).redirectError(err.toFile()).start();
            try {
                try (OutputStream in = p.getOutputStream()) {
                    in.write(MatrixBodies.DATA, 0, s.length()); // read whole before it connects
                }
                String out;
                try (InputStream o = p.getInputStream()) {
                    out = new String(o.readAllBytes(), StandardCharsets.UTF_8);
                }
                if (!p.waitFor(IO_TIMEOUT.toSeconds() * 2, TimeUnit.SECONDS)) {
                    throw new IOException("the hyper-h2 client did not end: " + cmd);
                }
                java.util.Map<String, String> r = new java.util.HashMap<>();
                for (String line : out.split("\n")) {
                    int eq = line.indexOf('=');
                    if (eq > 0) {
                        r.put(line.substring(0, eq), line.substring(eq + 1));
                    }
                }
                if (!r.containsKey("status")) {
                    throw new IOException("the hyper-h2 client reported nothing (exit " + p.exitValue() + "): "
                            + Files.readString(err).strip());
                }
                boolean complete = "true".equals(r.get("complete")) && p.exitValue() == 0;
                String error = r.getOrDefault("error", "");
                return new Outcome(Integer.parseInt(r.get("status")), Long.parseLong(r.get("received")),
                        r.get("sha256"), complete, complete ? null : error + " (sent " + r.get("sent") + ")",
                        Duration.ofNanos(System.nanoTime() - t0));
            } finally {
                p.destroyForcibly();
                Files.deleteIfExists(err);
            }
        }
    }

    private static MessageDigest sha() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
