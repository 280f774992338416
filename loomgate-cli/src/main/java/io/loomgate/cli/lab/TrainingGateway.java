package io.loomgate.cli.lab;

import io.loomgate.lab.Processes;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/** The gateway of {@link AotTrainCommand}: its key store and configuration, and the wait until it listens. */
final class TrainingGateway {
    static final String PASSWORD = "training";
    static final String ADMIN_TOKEN = "aot-training-token-".repeat(2);

    private TrainingGateway() {
    }

    /**
     * Where the training gateway listens: TLS (h2 and HTTP/1.1), its plain redirect listener, admin, a second,
     * plain listener (HTTP/1.1 and h2c) in the same JVM, and a third, plain, on epoll where the JVM can run it.
     */
    record Ports(int tls, int redirect, int admin, int plain, int epoll) {
    }

    /**
     * What the traffic needs to know: the files written (the TLS gateway's, the plain one's, the epoll one's) and the
     * ports chosen.
     */
    record Setup(Path config, Path plainConfig, Path epollConfig, Path keyStore, Ports ports) {
    }

    /**
     * The line {@code transport: auto} logs where epoll cannot run in the gateway's JVM (not Linux, Java before 22,
     * native access refused, the module absent): {@code Transport.resolve}'s, followed by the reason.
     */
    static final String EPOLL_UNAVAILABLE = "transport auto runs on the JDK's sockets: ";

    /**
     * A self-signed EC key for localhost made by the JDK's keytool (the training's traffic trusts exactly it), and a
     * configuration with two routes to the origin, one with filters, and the admin listener behind a token; and the
     * plain listener's configuration (HTTP/1.1 and h2c, as the harness's W1-W4 and W8 reach the gateway), whose
     * h2c side the TLS listener's {@code /h2c/**} route reaches over the gateway's own h2c client. The TLS config's
     * admin section is in YAML's flow style (as {@code bench/startup}'s config is), the rest in block style: the
     * parser's classes for both are then in the cache (a flow mapping read three of SnakeYAML's from the jar).
     */
    static Setup write(Path dir, int originPort, Ports ports) throws IOException, InterruptedException {
        Path keyStore = dir.resolve("training.p12");
        if (!Files.isRegularFile(keyStore)) { // one key for every attempt of start()
            Path keytool = Path.of(System.getProperty("java.home"), "bin", "keytool");
            Process p = new ProcessBuilder(keytool.toString(), "-genkeypair", "-keystore", keyStore.toString(),
                    "-storetype", "PKCS12", "-storepass", PASSWORD, "-alias", "gateway", "-keyalg", "EC",
                    "-groupname", "secp256r1", "-validity", "2", "-dname", "CN=localhost",
                    "-ext", "san=dns:localhost,ip:127.0.0.1").redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes());
            if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
                throw new IOException("keytool could not make the training key: " + out.strip());
            }
        }
        Path config = dir.resolve("gateway.yaml");
        Files.writeString(config, """
                server:
                  address: 127.0.0.1
                  port: %d
                  http-redirect-port: %d
                  ssl:
                    key-store: %s
                    key-store-password: %s
                admin: { address: 127.0.0.1, port: %d, auth-token: %s }
                routes:
                  - id: h2c
                    uri: h2c://127.0.0.1:%d
                    predicates: [ "Path=/h2c/**" ]
                    filters: [ "StripPrefix=1" ]
                  - id: api
                    uri: http://127.0.0.1:%d
                    predicates: [ "Path=/api/**", "Method=GET,POST" ]
                    filters: [ "AddRequestHeader=X-Trained, yes", "AddResponseHeader=X-Route, api" ]
                    timeout: 10s
                  - id: origin
                    uri: http://127.0.0.1:%d
                    predicates: [ "Path=/**" ]
                """.formatted(ports.tls(), ports.redirect(), keyStore, PASSWORD, ports.admin(), ADMIN_TOKEN,
                ports.plain(), originPort, originPort));
        Path plainConfig = dir.resolve("plain.yaml");
        Files.writeString(plainConfig, """
                server:
                  address: 127.0.0.1
                  port: %d
                  http2:
                    enabled: true
                admin:
                  port: 0
                access-log:
                  enabled: false
                routes:
                  - id: origin
                    uri: http://127.0.0.1:%d
                    predicates: [ "Path=/**" ]
                """.formatted(ports.plain(), originPort));
        // The third listener: epoll where it can run, decided by the gateway's own JVM (the one the cache is for,
        // not this one) as `auto` decides, so that a start on epoll finds the foreign-function linker's classes,
        // the downcall stubs and epoll's own in the cache. Its connections to the origin are on epoll too (HTTP/1.1,
        // and h2c through /h2c/** to the plain listener). Where epoll cannot run, the line above says why and the
        // traffic leaves it out (AotTrainCommand).
        Path epollConfig = dir.resolve("epoll.yaml");
        Files.writeString(epollConfig, """
                server:
                  address: 127.0.0.1
                  port: %d
                  transport: auto
                admin:
                  port: 0
                access-log:
                  enabled: false
                routes:
                  - id: h2c
                    uri: h2c://127.0.0.1:%d
                    predicates: [ "Path=/h2c/**" ]
                    filters: [ "StripPrefix=1" ]
                  - id: origin
                    uri: http://127.0.0.1:%d
                    predicates: [ "Path=/**" ]
                """.formatted(ports.epoll(), ports.plain(), originPort));
        return new Setup(config, plainConfig, epollConfig, keyStore, ports);
    }

    /** A gateway of the training, up: every listener bound on {@code setup}'s ports; its output in {@code log}. */
    record Started(Process gateway, Setup setup, Path log) {
    }

    /**
     * How many sets of ports {@link #start} tries. The ports are chosen free here and bound a moment later by the
     * gateway's JVM, so another process can take one in between (the machine's ephemeral ports are shared by every
     * test and build on it); that is the only failure start() tries again, and three losses in a row are not chance.
     */
    static final int PORT_ATTEMPTS = 3;

    /**
     * The line ServeCommand logs once every {@code --aot-training-listener} is bound: the gateway's own word that it
     * holds the ports, which a connection cannot give (a lost port accepts too, for whoever took it).
     */
    static final String TRAINING_LISTENING = "loomgate training listeners listening on ports";

    /**
     * Writes the setup on {@code ports}' next set, starts the gateway with {@code command}'s arguments for it, and
     * waits for its start-up line and its training listeners' line; when the gateway exits first because a port was
     * taken ({@link #lostAPort}), again on the next set, {@link #PORT_ATTEMPTS} times in all. Any other failure, or
     * the deadline, fails at once with the reason and the gateway's output in the log.
     */
    static Started start(Path dir, int originPort, PortSets ports, Function<Setup, List<String>> command,
                         Duration timeout) throws IOException, InterruptedException {
        for (int attempt = 1; ; attempt++) {
            Setup setup = write(dir, originPort, ports.next());
            Path log = dir.resolve("gateway-" + attempt + ".log");
            Process gateway = new ProcessBuilder(command.apply(setup)).redirectErrorStream(true)
                    .redirectOutput(log.toFile()).start();
            try {
                awaitLine(gateway, log, TRAINING_LISTENING, timeout);
                return new Started(gateway, setup, log);
            } catch (IOException e) {
                Processes.stop(gateway, Duration.ofSeconds(10));
                String lost = lostAPort(log);
                if (lost == null || attempt == PORT_ATTEMPTS) {
                    throw new StartFailed(e.getMessage(), log);
                }
                System.out.println("aot-train: a port chosen for the training was taken before the gateway bound it ("
                        + lost + "); again on new ports");
            }
        }
    }

    /** Where {@link #start} takes each attempt's ports from ({@link #freePorts} but in a test). */
    @FunctionalInterface
    interface PortSets {
        Ports next() throws IOException;
    }

    /** The failure of {@link #start}, with the log of the gateway that failed. */
    static final class StartFailed extends IOException {
        final transient Path log;

        StartFailed(String message, Path log) {
            super(message);
            this.log = log;
        }
    }

    /** Waits for {@code line} in the log; fails with the reason when the gateway exits first or the deadline passes. */
    private static void awaitLine(Process gateway, Path log, String line, Duration timeout) throws IOException,
            InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            if (Files.readAllLines(log).stream().anyMatch(l -> l.contains(line))) {
                return;
            }
            if (gateway.waitFor(100, TimeUnit.MILLISECONDS)) {
                throw new IOException("the gateway exited with " + gateway.exitValue()
                        + " before all its listeners were bound");
            }
        }
        throw new IOException("the gateway did not listen within " + timeout);
    }

    /**
     * The gateway's line that a listener could not bind its port because it is in use, or null: the listeners' "cannot
     * listen on ADDRESS:PORT: Address already in use" (the JDK's words; epoll's add "(EADDRINUSE)"), and the admin
     * listener's, which names its port in the same words.
     */
    static String lostAPort(Path log) throws IOException {
        return Files.readAllLines(log).stream().filter(l -> l.contains("Address already in use"))
                .map(String::strip).findFirst().orElse(null);
    }

    /** A set of ports free now (the gateway binds them a moment later: {@link #start} retries a lost one). */
    static Ports freePorts() throws IOException {
        return new Ports(freePort(), freePort(), freePort(), freePort(), freePort());
    }

    /**
     * Why the epoll listener runs on the JDK's sockets (its {@code transport: auto} line in the gateway's log), or
     * null when it runs on epoll.
     */
    static String epollUnavailable(Path log) throws IOException {
        return Files.readAllLines(log).stream().filter(l -> l.contains(EPOLL_UNAVAILABLE))
                .map(l -> l.substring(l.indexOf(EPOLL_UNAVAILABLE) + EPOLL_UNAVAILABLE.length()).strip())
                .findFirst().orElse(null);
    }

    /** A port free now. */
    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }
}
