package io.loomgate.testkit;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Assumptions;

/**
 * A real {@code redis-server} (Debian's package, which {@code .ci/run} installs) on a free loopback port, with no
 * persistence. Ready means it answered PING, polled with a deadline. {@link #kill()} is SIGKILL (a crash, not a
 * shutdown); {@link #restart()} starts it again on the same port, empty.
 *
 * <p>Without the binary the test is skipped with a message, except under {@code CI=true}, where it fails: CI must
 * not go green by running none of the Redis tests.
 */
public final class RedisServer implements AutoCloseable {
    private static final Duration READY_TIMEOUT = Duration.ofSeconds(20);

    private final List<String> extraArgs;
    private final boolean tls;
    private final Path log;
    private int port;
    private Process process;

    private RedisServer(List<String> extraArgs, boolean tls) throws IOException {
        this.extraArgs = List.copyOf(extraArgs);
        this.tls = tls;
        this.log = Files.createTempFile("redis-server-", ".log");
    }

    /** Starts one with these extra arguments (e.g. {@code --requirepass secret}). */
    public static RedisServer start(String... extraArgs) throws IOException {
        return start(false, extraArgs);
    }

    /**
     * Starts one that speaks only TLS on its port, with this certificate and key (PEM); clients need no certificate.
     * Ready means its log says so (a plain PING cannot reach it).
     */
    public static RedisServer startTls(Path cert, Path key, Path ca) throws IOException {
        return start(true, "--tls-cert-file", cert.toString(), "--tls-key-file", key.toString(),
                "--tls-ca-cert-file", ca.toString(), "--tls-auth-clients", "no");
    }

    private static RedisServer start(boolean tls, String... extraArgs) throws IOException {
        String binary = binary();
        if (binary == null) {
            String why = "redis-server is not installed (apt-get install redis-server; .ci/run does it)";
            if ("true".equals(System.getenv("CI"))) {
                throw new AssertionError(why);
            }
            Assumptions.abort(why);
        }
        RedisServer server = new RedisServer(List.of(extraArgs), tls);
        // Its port is on its command line, so it is probed first; a port lost to another socket before redis-server
        // bound it ("Address already in use" in its log) is started again on another, any other failure not.
        try {
            return FreePorts.start(port -> {
                server.port = port;
                server.launch();
                return server;
            });
        } catch (IOException | RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IOException(e);
        }
    }

    private static String binary() {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(":")) {
            Path p = Path.of(dir.isEmpty() ? "." : dir, "redis-server");
            if (Files.isExecutable(p)) {
                return p.toString();
            }
        }
        return Files.isExecutable(Path.of("/usr/bin/redis-server")) ? "/usr/bin/redis-server" : null;
    }

    private void launch() throws IOException {
        List<String> cmd = new ArrayList<>(List.of(binary(), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
                "--protected-mode", "no", "--daemonize", "no"));
        cmd.addAll(tls ? List.of("--port", "0", "--tls-port", Integer.toString(port))
                : List.of("--port", Integer.toString(port)));
        cmd.addAll(extraArgs);
        Files.writeString(log, "");
        process = new ProcessBuilder(cmd).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
        long deadline = System.nanoTime() + READY_TIMEOUT.toNanos();
        while (tls ? !Files.readString(log).contains("Ready to accept connections") : !answersPing()) {
            if (!process.isAlive()) {
                throw new IOException("redis-server exited with " + process.exitValue() + ": " + Files.readString(log));
            }
            if (System.nanoTime() > deadline) {
                process.destroyForcibly();
                throw new AssertionError("redis-server did not answer PING within " + READY_TIMEOUT + ": "
                        + Files.readString(log));
            }
            LockSupport.parkNanos(20_000_000);
        }
    }

    /** True when something on the port answers a PING like Redis (PONG, or NOAUTH when it wants a password). */
    private boolean answersPing() {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), 1000);
            s.setSoTimeout(1000);
            OutputStream out = s.getOutputStream();
            out.write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = s.getInputStream();
            byte[] b = new byte[64];
            int n = in.read(b);
            String reply = n <= 0 ? "" : new String(b, 0, n, StandardCharsets.US_ASCII);
            return reply.startsWith("+PONG") || reply.startsWith("-NOAUTH");
        } catch (IOException e) {
            return false;
        }
    }

    public int port() {
        return port;
    }

    public String url() {
        return (tls ? "rediss" : "redis") + "://127.0.0.1:" + port;
    }

    /** SIGKILL, then waits until the process is gone. */
    public void kill() throws InterruptedException {
        process.destroyForcibly();
        if (!process.waitFor(10, TimeUnit.SECONDS)) {
            throw new AssertionError("redis-server survived SIGKILL for 10 s");
        }
    }

    /** A fresh, empty redis-server on the same port. */
    public void restart() throws IOException, InterruptedException {
        if (process.isAlive()) {
            kill();
        }
        long deadline = System.nanoTime() + READY_TIMEOUT.toNanos();
        while (true) {
            try {
                launch();
                return;
            } catch (IOException e) {
                // The old socket may linger a moment; poll until the port can be bound again.
                if (System.nanoTime() > deadline) {
                    throw e;
                }
                LockSupport.parkNanos(50_000_000);
            }
        }
    }

    public String log() throws IOException {
        return Files.readString(log);
    }

    @Override
    public void close() throws IOException {
        if (process != null) {
            process.destroyForcibly();
            try {
                process.waitFor(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        Files.deleteIfExists(log);
    }
}
