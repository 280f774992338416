package io.loomgate.cli.lab;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

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
    static Setup write(Path dir, int originPort) throws IOException, InterruptedException {
        Path keyStore = dir.resolve("training.p12");
        Path keytool = Path.of(System.getProperty("java.home"), "bin", "keytool");
        Process p = new ProcessBuilder(keytool.toString(), "-genkeypair", "-keystore", keyStore.toString(),
                "-storetype", "PKCS12", "-storepass", PASSWORD, "-alias", "gateway", "-keyalg", "EC",
                "-groupname", "secp256r1", "-validity", "2", "-dname", "CN=localhost",
                "-ext", "san=dns:localhost,ip:127.0.0.1").redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IOException("keytool could not make the training key: " + out.strip());
        }
        Ports ports = new Ports(freePort(), freePort(), freePort(), freePort(), freePort());
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

    /** Waits for the start-up line; fails with the reason when the gateway exits first or the deadline passes. */
    static void awaitListening(Process gateway, Path log, Duration timeout) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            List<String> lines = Files.readAllLines(log);
            if (lines.stream().anyMatch(l -> l.contains("loomgate listening on"))) {
                return;
            }
            if (gateway.waitFor(100, TimeUnit.MILLISECONDS)) {
                throw new IOException("the gateway exited with " + gateway.exitValue() + " before it listened");
            }
        }
        throw new IOException("the gateway did not listen within " + timeout);
    }

    /**
     * Waits until each of {@code ports} accepts a connection (the training listeners start after the main one's
     * start-up line); fails when the gateway exits first or the deadline passes.
     */
    static void awaitAccepting(Process gateway, List<Integer> ports, Duration timeout) throws IOException,
            InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        for (int port : ports) {
            while (true) {
                try (Socket s = new Socket()) {
                    s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 1000);
                    break;
                } catch (IOException notYet) {
                    if (System.nanoTime() > deadline) {
                        throw new IOException("the training listener on port " + port + " did not accept within "
                                + timeout, notYet);
                    }
                    if (gateway.waitFor(50, TimeUnit.MILLISECONDS)) {
                        throw new IOException("the gateway exited with " + gateway.exitValue()
                                + " before its training listeners accepted");
                    }
                }
            }
        }
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

    /** A port free now (the gateway binds it a moment later; a clash fails the run with the gateway's message). */
    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }
}
