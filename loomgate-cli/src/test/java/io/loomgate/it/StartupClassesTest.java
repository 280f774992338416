package io.loomgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.testkit.ClassPathGateway;
import io.loomgate.testkit.FreePorts;
import io.loomgate.testkit.TestOrigin;
import io.loomgate.testkit.TestPki;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Start-up work a plain gateway does not need stays out of its start, checked by what it does, not by timing it (the
 * time is measured by bench/startup): {@code serve} of a plain-HTTP config with one route, run as a process on this
 * class path with the JVM's class-loading log, answers through its route without having loaded the platform MBean
 * server (a seventh of the start's CPU once: every platform MBean registered, the diagnostic commands' help parsed),
 * the other commands (picocli builds a model of every command it is given), picocli's reflection over the annotated
 * fields of the root and {@code serve}, Conscrypt, OpenTelemetry, or Logback's XML configurator (a fifth of the main
 * thread's work once); the JVM metrics' binders and the pinned-event monitor's JFR recording (JFR's start took a
 * fifth of the CPU to the first answer, on two cores beside it) load only once the gateway serves. Nor, before the
 * rest of the start, any of what made classes at run time on the way to the first answer (pattern switches, records'
 * generated methods: JDK 25's AOT cache holds neither) or set up the JDK's System.Logger or container metrics, or
 * initialised {@code BigDecimal} (Jackson's YAML parser did, and {@code Duration.multipliedBy} does).
 */
class StartupClassesTest {
    /** The class-loading log's line for the task that starts the rest after the gateway serves. */
    private static final String REST_OF_START = " io.loomgate.observe.GatewayTelemetry$RestOfStart ";
    /** The line for JFR's recorder, which the pinned-event monitor's recording stream sets up as it starts. */
    private static final String JFR_RECORDER = " jdk.jfr.internal.PlatformRecorder ";

    @Test
    void aPlainConfigAnswersWithoutTheClassesItDoesNotNeed(@TempDir Path dir) throws Exception {
        try (TestOrigin origin = new TestOrigin()) {
            origin.enqueue(TestOrigin.Reply.ok("hello from origin"));
            Path yaml = dir.resolve("gateway.yaml");
            Files.writeString(yaml, """
                    server: { address: 127.0.0.1, port: 0 }
                    admin: { port: 0 }
                    routes:
                      - { id: origin, uri: "%s", predicates: [ "Path=/**" ] }
                    """.formatted(origin.uri()));
            Path classes = dir.resolve("classes.log");
            Path initialised = dir.resolve("initialised.log");
            try (ClassPathGateway gw = ClassPathGateway.serve(dir, yaml, List.of("-Xlog:class+load=info:file="
                    + classes, "-Xlog:class+init=debug:file=" + initialised), Map.of())) {
                int port = gw.awaitListening(Duration.ofSeconds(90));
                HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + port + "/hello")).timeout(Duration.ofSeconds(30)).build(),
                        HttpResponse.BodyHandlers.ofString());
                assertThat(r.statusCode()).isEqualTo(200);
                assertThat(r.body()).isEqualTo("hello from origin");

                List<String> loaded = Files.readAllLines(classes);
                assertThat(loaded).as("the class-loading log").anyMatch(l -> l.contains(" io.loomgate.cli.ServeCommand "));
                assertThat(loaded).as("classes loaded by a plain gateway up to its first answer")
                        .noneMatch(l -> l.contains(" com.sun.jmx.mbeanserver.JmxMBeanServer "))
                        .noneMatch(l -> l.contains(" io.loomgate.cli.DemoCommand "))
                        .noneMatch(l -> l.contains(" io.loomgate.cli.ValidateCommand "))
                        .noneMatch(l -> l.contains(" org.conscrypt."))
                        .noneMatch(l -> l.contains(" io.opentelemetry."))
                        .as("picocli's models of the root and serve built in code: no reflection over their fields")
                        .noneMatch(l -> l.contains(" picocli.CommandLine$Model$TypedMember "))
                        .noneMatch(l -> l.contains(" picocli.CommandLine$AutoHelpMixin "))
                        .as("Logback configured without its XML configurator (Joran) or an XML parser")
                        .noneMatch(l -> l.contains(" ch.qos.logback.classic.joran."))
                        .noneMatch(l -> l.contains(" ch.qos.logback.core.joran.GenericXMLConfigurator "))
                        .noneMatch(l -> l.contains(" javax.xml.parsers."));
                // What the JDK's AOT cache cannot hold, so each costs the first answer classes made at run time by
                // the JDK's class-file API, interpreted (docs/architecture.md, "Start-up"), and what a plain gateway
                // does not need before it serves. Up to the rest of the start (1 s after serving), which may use them.
                int restBegan = indexOf(loaded, REST_OF_START);
                assertThat(restBegan < 0 ? loaded : loaded.subList(0, restBegan))
                        .as("no pattern switch run on the start path or the first exchange (an invokedynamic "
                                + "bootstrap that spins a class)")
                        .noneMatch(l -> l.contains("$$TypeSwitch/"))
                        .as("no record's generated equals, hashCode or toString called (ObjectMethods' bootstrap)")
                        .noneMatch(l -> l.contains(" java.lang.runtime.ObjectMethods "))
                        .as("the DNS cache's TTL set without a security property event (which starts the JDK's "
                                + "System.Logger)")
                        .noneMatch(l -> l.contains(" jdk.internal.event.SecurityPropertyModificationEvent "))
                        .as("the descriptor budget read without the platform's OperatingSystemMXBean (container "
                                + "metrics read from the cgroup files)")
                        .noneMatch(l -> l.contains(" jdk.internal.platform.CgroupMetrics "))
                        .as("the config read without Jackson's YAML parser (whose base class initialises BigDecimal)")
                        .noneMatch(l -> l.contains(" com.fasterxml.jackson.dataformat.yaml.YAMLParser "));
                // Loaded is not enough here (picocli's converter table names BigDecimal.class): initialised is what
                // costs, its JDK 25 class initialiser squaring powers of five (~10 ms interpreted).
                List<String> inits = Files.readAllLines(initialised);
                int restInitialised = indexOf(inits, " is initializing " + REST_OF_START.strip());
                assertThat(restInitialised < 0 ? inits : inits.subList(0, restInitialised))
                        .as("the class-initialisation log")
                        .anyMatch(l -> l.endsWith(" is initializing io.loomgate.cli.ServeCommand"))
                        .as("the MDC adapter installed by the start (main), not by a first exchange: a burst of "
                                + "them would wait on one, each pinned to its carrier")
                        .anyMatch(l -> l.endsWith("Thread \"main\" is initializing io.loomgate.proxy.LogContext"))
                        .as("no BigDecimal initialised on the start path: no Jackson YAML parser, no "
                                + "Duration.multipliedBy")
                        .noneMatch(l -> l.endsWith(" is initializing java.math.BigDecimal"));

                // The JVM metrics' binders and the pinned-event monitor's JFR recording start after the gateway
                // serves, in the background: they load, but only once the task that starts them has begun. (Until
                // the recording has its files the listener keeps descriptors for it: JFR shuts the JVM down when it
                // cannot create them, see FdLimitIT.)
                List<String> all = awaitLoaded(classes, List.of(REST_OF_START,
                        " io.micrometer.core.instrument.binder.jvm.JvmGcMetrics ", JFR_RECORDER),
                        Duration.ofSeconds(60));
                // The first answer's access-log line is written on a thread of its own: by the time the rest of
                // the start runs (its JVM binders initialised), it has been.
                List<String> initsByRest = Files.readAllLines(initialised);
                int binders = indexOf(initsByRest, " is initializing io.micrometer.core.instrument.binder.jvm.");
                assertThat(binders).as("the JVM binders' initialisation in the log").isPositive();
                assertThat(initsByRest.subList(0, binders))
                        .as("the first answer's access-log line written without the JDK's locale data (a "
                                + "formatter's month name)")
                        .noneMatch(l -> l.endsWith(" is initializing sun.util.locale.provider.CalendarDataUtility"));
                int rest = indexOf(all, REST_OF_START);
                assertThat(indexOf(all, " io.micrometer.core.instrument.binder.jvm.JvmGcMetrics "))
                        .as("the JVM binders after the rest began").isGreaterThan(rest);
                assertThat(indexOf(all, JFR_RECORDER))
                        .as("the pinned-event monitor's JFR recording after the rest began").isGreaterThan(rest);
            }
        }
    }

    /**
     * With an {@code https://} origin, the start makes the origins' TLS context and warms it (a ClientHello written
     * into memory): by the time the gateway listens, JSSE's client handshake classes are loaded, with no request sent
     * and no origin dialled (the one named does not exist), so the first dial's {@code connect-timeout} does not pay
     * for them. Before, only the context was made at start (ClientHello first loaded inside the first dial).
     */
    @Test
    void anHttpsOriginsClientHandshakeIsWarmedBeforeTheGatewayListens(@TempDir Path dir) throws Exception {
        Path yaml = dir.resolve("gateway.yaml");
        Files.writeString(yaml, """
                server: { address: 127.0.0.1, port: 0 }
                admin: { port: 0 }
                upstream: { ssl: { provider: jdk } }
                routes:
                  - { id: origin, uri: "https://localhost:1", predicates: [ "Path=/**" ] }
                """);
        Path classes = dir.resolve("classes.log");
        try (ClassPathGateway gw = ClassPathGateway.serve(dir, yaml, List.of("-Xlog:class+load=info:file=" + classes),
                Map.of())) {
            gw.awaitListening(Duration.ofSeconds(90));
            assertThat(Files.readAllLines(classes)).as("classes loaded by the start of a gateway with an https origin")
                    .anyMatch(l -> l.contains(" sun.security.ssl.ClientHello "))
                    .anyMatch(l -> l.contains(" sun.security.ssl.KeyShareExtension "));
        }
    }

    /**
     * With a TLS listener, the start runs the server's side of one handshake in memory (a ClientHello with SNI and
     * ALPN consumed, the first flight written), so the classes of that path are initialised by {@code main}, not by
     * the first burst of handshakes at once: a virtual thread that waits for another's class initialisation is pinned
     * to its carrier on JDK 25, and session 56 saw both carriers pinned for up to 1.25 s by 90 first connections
     * ({@code java.net.IDN} 611 ms, {@code SNIHostName} 211 ms). Before, none of them was initialised at start.
     */
    @Test
    void aTlsListenersHandshakePathIsInitialisedBeforeTheGatewayListens(@TempDir Path dir) throws Exception {
        TestPki.requireOpenssl();
        TestPki pki = TestPki.create("startup-tls");
        TestPki.Issued server = pki.issue("server", "localhost", "localhost");
        Path yaml = dir.resolve("gateway.yaml");
        Files.writeString(yaml, """
                server:
                  address: 127.0.0.1
                  port: 0
                  http2: { enabled: true }
                  ssl: { provider: jdk, certificate: %s, certificate-private-key: %s }
                admin: { port: 0 }
                routes:
                  - { id: origin, uri: "http://127.0.0.1:1", predicates: [ "Path=/**" ] }
                """.formatted(server.cert(), server.key()));
        Path initialised = dir.resolve("initialised.log");
        try (ClassPathGateway gw = ClassPathGateway.serve(dir, yaml, List.of("-Xlog:class+init=debug:file="
                + initialised), Map.of())) {
            gw.awaitListening(Duration.ofSeconds(90));
            assertThat(Files.readAllLines(initialised)).as("classes initialised by the start of a TLS gateway")
                    .anyMatch(l -> l.endsWith("Thread \"main\" is initializing java.net.IDN"))
                    .anyMatch(l -> l.endsWith("Thread \"main\" is initializing javax.net.ssl.SNIHostName"))
                    .anyMatch(l -> l.endsWith("Thread \"main\" is initializing sun.security.ssl.SSLExtension"));
        }
    }

    /**
     * The admin listener's TLS ({@code admin.ssl}) is warmed as the main listener's is, beside a plain main listener,
     * on a thread of its own beside the start (the admin listener's connections run on platform threads: one that
     * meets the warm-up waits without pinning a carrier): its first handshakes (a readiness probe with a one-second
     * timeout, a fleet's scrapers) would otherwise run that path cold. Before, none of these was initialised until a
     * client came. The admin listener needs a port of its own here: {@code admin.port: 0} turns it off, and with it
     * the TLS context (why session 56's version of this test never saw the classes).
     */
    @Test
    void theAdminListenersHandshakePathIsInitialisedBeforeItsFirstClient(@TempDir Path dir) throws Exception {
        TestPki.requireOpenssl();
        TestPki pki = TestPki.create("startup-admin-tls");
        TestPki.Issued server = pki.issue("server", "localhost", "localhost");
        Path initialised = dir.resolve("initialised.log");
        try (ClassPathGateway gw = FreePorts.start(adminPort -> {
            Path yaml = dir.resolve("gateway.yaml");
            Files.writeString(yaml, """
                    server:
                      address: 127.0.0.1
                      port: 0
                    admin:
                      address: 127.0.0.1
                      port: %d
                      ssl: { provider: jdk, certificate: %s, certificate-private-key: %s }
                    routes:
                      - { id: origin, uri: "http://127.0.0.1:1", predicates: [ "Path=/**" ] }
                    """.formatted(adminPort, server.cert(), server.key()));
            ClassPathGateway started = ClassPathGateway.serve(dir, yaml, List.of("-Xlog:class+init=debug:file="
                    + initialised), Map.of());
            try {
                started.awaitListening(Duration.ofSeconds(90));
                return started;
            } catch (Exception | AssertionError e) {
                started.close();
                throw e;
            }
        })) {
            // No client has come: whoever initialises these is the warm-up. It runs beside the start, so polled.
            String warmUp = "Thread \"loomgate-admin-tls-warm-up\" is initializing ";
            List<String> lines = awaitLoaded(initialised, List.of(warmUp + "java.net.IDN",
                    warmUp + "javax.net.ssl.SNIHostName", warmUp + "sun.security.ssl.SSLExtension"),
                    Duration.ofSeconds(60));
            assertThat(lines).as("classes initialised by an admin.ssl gateway's warm-up")
                    .anyMatch(l -> l.endsWith(warmUp + "java.net.IDN"))
                    .anyMatch(l -> l.endsWith(warmUp + "javax.net.ssl.SNIHostName"))
                    .anyMatch(l -> l.endsWith(warmUp + "sun.security.ssl.SSLExtension"));
        }
    }

    /** Polls the class-loading log until each of {@code wanted} is in it; its lines then. */
    private static List<String> awaitLoaded(Path classes, List<String> wanted, Duration timeout) throws IOException,
            InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            List<String> lines = Files.readAllLines(classes);
            if (wanted.stream().allMatch(w -> indexOf(lines, w) >= 0)) {
                return lines;
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError("not all of " + wanted + " loaded within " + timeout);
            }
            Thread.sleep(50);
        }
    }

    private static int indexOf(List<String> lines, String part) {
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).contains(part)) {
                return i;
            }
        }
        return -1;
    }
}
