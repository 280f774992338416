package io.loomgate.testkit;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The packaged jar run as a real process ({@code java -jar target/loomgate.jar ...}) with the JDK running the tests,
 * its output captured to a file. Readiness is found by polling the output for the "listening on" line with a deadline.
 */
public final class JarProcess implements AutoCloseable {
    private static final Pattern LISTENING = Pattern.compile("listening on [^ ]+:(\\d+)[^\n]*");
    /** The admin listener in the start line: "admin 127.0.0.1:9977" (or "admin off"). */
    private static final Pattern ADMIN = Pattern.compile("listening on [^\n]*, admin [^ ]+:(\\d+)");

    private final Process process;
    private final Path log;
    /** The transport this process's {@code serve} was asked to run on ({@code --transport}), or null. */
    private final String transportAsked;
    private volatile boolean allowUnexpected;

    private JarProcess(Process process, Path log, String transportAsked) {
        this.process = process;
        this.log = log;
        this.transportAsked = transportAsked;
    }

    /** The jar with every command (gateway and lab). */
    public static Path jar() {
        return packaged(System.getProperty("loomgate.jar", "target/loomgate.jar"));
    }

    /** The gateway-only jar (serve, demo): no lab, no database driver. */
    public static Path gatewayJar() {
        return packaged(System.getProperty("loomgate.gateway.jar", "target/loomgate-gateway.jar"));
    }

    private static Path packaged(String p) {
        Path jar = Path.of(p);
        if (!Files.isRegularFile(jar)) {
            throw new IllegalStateException("no jar at " + jar.toAbsolutePath() + ": run 'mvn package' first");
        }
        return jar;
    }

    public static String javaBinary() {
        return ProcessHandle.current().info().command().orElse(Path.of(System.getProperty("java.home"), "bin", "java")
                .toString());
    }

    /** Starts {@code java <jvmArgs> -jar loomgate.jar <args>} with extra environment variables. */
    public static JarProcess start(List<String> jvmArgs, List<String> args, Map<String, String> env)
            throws IOException {
        return start(jar(), jvmArgs, args, env);
    }

    /**
     * Starts {@code java <jvmArgs> -jar <jar> <args>} with extra environment variables. It runs under {@code env
     * --default-signal=HUP}: a test runner started under {@code nohup} passes SIGHUP on as ignored, and a gateway
     * that inherits it so cannot reload on SIGHUP (it says so at start), which is not what the tests are about.
     */
    public static JarProcess start(Path jar, List<String> jvmArgs, List<String> args, Map<String, String> env)
            throws IOException {
        return start(List.of("env", "--default-signal=HUP"), jar, jvmArgs, args, env);
    }

    /**
     * As {@link #start(Path, List, List, Map)}, with at most {@code nofile} file descriptors ({@code prlimit(1)}
     * execs the JVM, so the pid stays the JVM's).
     */
    public static JarProcess startWithFdLimit(int nofile, List<String> jvmArgs, List<String> args,
                                              Map<String, String> env) throws IOException {
        return start(List.of("prlimit", "--nofile=" + nofile + ":" + nofile, "env", "--default-signal=HUP"), jar(),
                jvmArgs, args, env);
    }

    /** As {@link #start(Path, List, List, Map)}, with SIGHUP inherited as ignored, as {@code nohup} leaves it. */
    public static JarProcess startWithHangupIgnored(Path jar, List<String> jvmArgs, List<String> args)
            throws IOException {
        return start(List.of("env", "--ignore-signal=HUP"), jar, jvmArgs, args, Map.of());
    }

    /**
     * Starts the repository's {@code loomgate} launcher script with {@code args}, so with the JVM flags it picks; it
     * execs the JVM, so the pid is the JVM's. It builds the jars first only if they are missing or older than the
     * sources, which they are not once the build has packaged them.
     */
    public static JarProcess startLauncher(Path script, List<String> args, Map<String, String> env)
            throws IOException {
        List<String> cmd = new ArrayList<>(List.of("env", "--default-signal=HUP", script.toString()));
        cmd.addAll(onTransportUnderTest(args));
        return started(cmd, env, transportAsked(args));
    }

    private static JarProcess start(List<String> launcher, Path jar, List<String> jvmArgs, List<String> args,
            Map<String, String> env) throws IOException {
        List<String> cmd = new ArrayList<>(launcher); // env(1) execs java: the process's pid stays the JVM's
        cmd.add(javaBinary());
        cmd.addAll(jvmArgs);
        cmd.add("-jar");
        cmd.add(jar.toString());
        cmd.addAll(onTransportUnderTest(args));
        return started(cmd, env, transportAsked(args));
    }

    private static JarProcess started(List<String> cmd, Map<String, String> env, String transportAsked)
            throws IOException {
        Path log = Files.createTempFile("loomgate-it", ".log");
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile());
        pb.environment().putAll(env);
        return new JarProcess(pb.start(), log, transportAsked);
    }

    /**
     * A process that must be told its port before it binds it (the admin listener's 0 turns it off; a crowd that
     * connects before the start line needs the listener's port first), started and waited for until it listens.
     * {@code start} starts it on a port probed free a moment before; when the start lost that port to another socket
     * in between (its output says "Address already in use"), it is closed and started again on another port, at most
     * {@link FreePorts#TRIES} times ({@link FreePorts}). Any other failure to start is thrown as it is.
     */
    public static JarProcess listening(Duration timeout, FreePorts.OnPort<JarProcess> start) throws Exception {
        return listening(timeout, 1, ports -> start.start(ports.getFirst()));
    }

    /** As {@link #listening(Duration, FreePorts.OnPort)}, on {@code count} ports probed free together. */
    public static JarProcess listening(Duration timeout, int count, FreePorts.OnPorts<JarProcess> start)
            throws Exception {
        return FreePorts.start(count, ports -> {
            JarProcess p = start.start(ports);
            try {
                p.awaitListening(timeout);
                return p;
            } catch (RuntimeException | IOException e) {
                try {
                    p.close();
                } catch (IOException | AssertionError closing) {
                    e.addSuppressed(closing);
                }
                throw e;
            }
        });
    }

    /**
     * {@code args} with {@code --transport <asked>} appended when they run {@code serve}, the build asks for a
     * transport ({@value RunningGateway#TRANSPORT_PROPERTY}, as the in-JVM tests follow it) and the test did not
     * choose one itself: the one place every IT that runs the jar, the launcher or a script of them follows it.
     */
    public static List<String> onTransportUnderTest(List<String> args) {
        String asked = transportAsked(args);
        if (asked == null || args.contains("--transport")) {
            return args;
        }
        List<String> with = new ArrayList<>(args);
        with.add("--transport");
        with.add(asked);
        return with;
    }

    /** The transport the build asks {@code serve} to run on, or null (not serve, or nothing asked). */
    private static String transportAsked(List<String> args) {
        String asked = System.getProperty(RunningGateway.TRANSPORT_PROPERTY);
        if (asked == null || asked.isBlank() || args.isEmpty() || !args.get(0).equals("serve")) {
            return null;
        }
        int own = args.indexOf("--transport");
        return own >= 0 && own + 1 < args.size() ? args.get(own + 1) : asked.trim().toLowerCase(java.util.Locale.ROOT);
    }

    /**
     * The least {@link #awaitListening} waits. Readiness deadlines are not start-up checks: a JVM starting the jar on a
     * 2-core machine that is also building Jaeger or running the other test JVM took 17.6 s to its listening line at
     * a load of 25, and a 30 s deadline failed TracingJaegerIT there with an empty log (the gateway had not yet written
     * its first line). A quick start still returns at once.
     */
    static final Duration START_DEADLINE_FLOOR = Duration.ofSeconds(90);

    /**
     * Polls the output for the gateway's "listening on host:port" line; returns the port. Waits up to {@code timeout},
     * or {@link #START_DEADLINE_FLOOR} if that is longer. Fails loudly when the line names another transport than the
     * one asked (as {@link RunningGateway#onTheTransportAsked} does in the test's JVM): an IT that passed on the
     * JDK's sockets when epoll was asked would say nothing about epoll.
     */
    public int awaitListening(Duration timeout) throws IOException {
        Duration wait = timeout.compareTo(START_DEADLINE_FLOOR) < 0 ? START_DEADLINE_FLOOR : timeout;
        long deadline = System.nanoTime() + wait.toNanos();
        while (System.nanoTime() < deadline) {
            Matcher m = LISTENING.matcher(output());
            if (m.find()) {
                if (transportAsked != null && !m.group().contains("transport " + transportAsked + ")")) {
                    throw new IllegalStateException("asked for transport " + transportAsked
                            + ", the gateway's start line says otherwise: " + m.group());
                }
                return Integer.parseInt(m.group(1));
            }
            if (!process.isAlive()) {
                throw new IllegalStateException("the gateway exited with " + process.exitValue() + ":\n" + output());
            }
            LockSupport.parkNanos(20_000_000);
        }
        throw new IllegalStateException("the gateway did not report listening within " + wait + ":\n" + output());
    }

    /** The admin listener's port, from the start line (call after {@link #awaitListening}); fails if it is off. */
    public int adminPort() throws IOException {
        Matcher m = ADMIN.matcher(output());
        if (!m.find()) {
            throw new IllegalStateException("no admin listener in the start line:\n" + output());
        }
        return Integer.parseInt(m.group(1));
    }

    public String output() throws IOException {
        return Files.readString(log, StandardCharsets.UTF_8);
    }

    /** Waits for the process to end by itself; returns its exit code. */
    public int awaitExit(Duration timeout) throws InterruptedException, IOException {
        if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            process.destroyForcibly();
            throw new IllegalStateException("the process did not exit within " + timeout + ":\n" + output());
        }
        return process.exitValue();
    }

    /** SIGTERM. */
    public void terminate() {
        process.destroy();
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    public long pid() {
        return process.pid();
    }

    /**
     * Stops the process and fails when its output holds an unexpected exception (see
     * {@link UnexpectedExceptionCheck}): every test running the jar is checked the way in-process tests are.
     */
    @Override
    public void close() throws IOException {
        process.destroyForcibly();
        try {
            process.waitFor(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        try {
            List<String> unexpected = allowUnexpected ? List.of() : UnexpectedExceptionCheck.inOutput(output());
            if (!unexpected.isEmpty()) {
                throw new AssertionError("the gateway process logged unexpected exception(s); each is a bug:\n"
                        + String.join("\n", unexpected));
            }
        } finally {
            Files.deleteIfExists(log);
        }
    }

    /** For a test that provokes an unexpected exception on purpose: {@link #close} does not fail on it. */
    public JarProcess allowUnexpected() {
        allowUnexpected = true;
        return this;
    }
}
