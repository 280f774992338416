package io.loomgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.cli.ServedGateway;
import io.loomgate.config.ConfigLoader;
import io.loomgate.config.Plugins;
import io.loomgate.observe.ConfigReloads;
import io.loomgate.testkit.Jwts;
import io.loomgate.testkit.Jwts.SigningKey;
import io.loomgate.testkit.RunningGateway;
import io.loomgate.testkit.TestOrigin;
import java.io.OutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

/**
 * Live reload from a file that is being written: in place, in parts, with pauses (an editor, {@code cat > file}, a
 * slow network mount), beside another file of the folder that keeps changing (an access log), and reloads that must
 * not cost the JWKS keys a route already holds. The gateway runs in the test's JVM as {@code serve} runs it
 * ({@link ServedGateway} with the file watch): with its default settle window for a writer's longest pause, with a
 * shorter one ({@link #SHORT_SETTLE}) for the seven kinds of writes, whose pauses keep the default's margins.
 */
// Side by side (JUnit's parallel mode, enabled in the module's surefire configuration for classes that ask): each
// test has its own origin, folder, gateway and file watch, and waits out settle windows; in a row they were 27 s.
// Seven generations on the default 2 s window were 23 s of the suite (session 57 gave the six others a 1 s window).
@Execution(ExecutionMode.CONCURRENT)
class ReloadFileSafetyTest {
    private static final String SECRET = "a lab secret of at least 32 bytes!!";
    /**
     * The window of the test of every kind of write. Each writer's pause keeps its distance from the window that
     * the default's test had: within it by 500 ms (the default 2 s against an editor's 1.5 s), beyond it by 1 s
     * (3 s against 2 s), so a stalled writer on a loaded machine has the same room as before.
     */
    private static final Duration SHORT_SETTLE = Duration.ofSeconds(1);
    /** A pause that the settle window must outlast: the window less 500 ms. */
    private static final Duration WITHIN_SHORT = SHORT_SETTLE.minusMillis(500);
    private static final Duration APPLIED_WITHIN = Duration.ofSeconds(30);
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private TestOrigin origin;

    @BeforeEach
    void origin() throws Exception {
        origin = new TestOrigin().fallback(r -> TestOrigin.Reply.ok("origin " + r.target()));
    }

    @AfterEach
    void close() throws Exception {
        origin.close();
    }

    /**
     * Generation n: a route secured by JwtAuth, an open route, then gen-1 to gen-n, each on /gen/k/** and secured
     * too. Each generation only adds a route, so it drops nothing the one before had.
     */
    private String generation(int n) {
        StringBuilder routes = new StringBuilder();
        for (int k = 1; k <= n; k++) {
            routes.append("""
                      - id: gen-%1$d
                        uri: %2$s
                        predicates: [ "Path=/gen/%1$d/**" ]
                        filters:
                          - name: JwtAuth
                            args: { secret: '%3$s' }
                    """.formatted(k, origin.uri(), SECRET));
        }
        return """
                server:
                  address: 127.0.0.1
                  port: 0
                admin:
                  port: 0
                access-log:
                  enabled: false
                routes:
                  - id: secured
                    uri: %1$s
                    predicates: [ "Path=/secured/**" ]
                    filters:
                      - name: JwtAuth
                        args: { secret: '%2$s' }
                  - id: open
                    uri: %1$s
                    predicates: [ "Path=/open/**" ]
                """.formatted(origin.uri(), SECRET) + routes;
    }

    private static ServedGateway serve(Path yaml, boolean watch) throws Exception {
        return serve(yaml, watch, ServedGateway.Reloading.DEFAULT_SETTLE);
    }

    private static ServedGateway serve(Path yaml, boolean watch, Duration settle) throws Exception {
        return ServedGateway.start(RunningGateway.onTransportUnderTest(ConfigLoader.load(yaml)), Plugins.NONE,
                new ServedGateway.Reloading(yaml, RunningGateway::onTransportUnderTest, watch, false, settle));
    }

    /**
     * The default settle window (2 s) against the longest pause of a writer in place that it was chosen for (1.5 s,
     * {@link ServedGateway.Reloading#DEFAULT_SETTLE}): the first part, a valid file whose new route has no JwtAuth,
     * is never served.
     */
    @Test
    void theDefaultSettleWindowOutlastsAnEditorsPause(@TempDir Path dir) throws Exception {
        Path yaml = dir.resolve("gateway.yaml");
        renameOver(yaml, generation(0));
        try (ServedGateway gw = serve(yaml, true);
             Hammer secured = new Hammer(gw.port(), () -> "/secured/x", 1);
             Hammer newRoute = new Hammer(gw.port(), () -> "/gen/1/x", 2);
             Hammer open = new Hammer(gw.port(), () -> "/open/x", 1)) {
            String text = generation(1);
            int cut = text.lastIndexOf("    filters:");
            writeInPlace(yaml, Duration.ofMillis(1500), text.substring(0, cut), text.substring(cut));
            awaitApplied(gw, 1);
            assertNeverServedWithoutAToken(secured, newRoute, open);
        }
    }

    @Test
    void aFileRewrittenInPlaceInPartsIsNeverServedHalfAndNoSecuredRouteEverAnswersWithoutAToken(@TempDir Path dir)
            throws Exception {
        Path yaml = dir.resolve("gateway.yaml");
        renameOver(yaml, generation(0));
        AtomicInteger newest = new AtomicInteger(1);
        try (ServedGateway gw = serve(yaml, true, SHORT_SETTLE);
             Hammer secured = new Hammer(gw.port(), () -> "/secured/x", 2);
             Hammer newRoute = new Hammer(gw.port(), () -> "/gen/" + newest.get() + "/x", 2);
             Hammer open = new Hammer(gw.port(), () -> "/open/x", 1)) {
            int n = 0;
            // In place, cut just before the new route's filters: the first part alone is a valid file that drops
            // nothing the running one has, and whose new route has no JwtAuth. Only the settle window keeps it out.
            for (Duration pause : List.of(Duration.ofMillis(200), WITHIN_SHORT, Duration.ofMillis(200))) {
                newest.set(++n);
                String text = generation(n);
                int cut = text.lastIndexOf("    filters:");
                writeInPlace(yaml, pause, text.substring(0, cut), text.substring(cut));
                awaitApplied(gw, n);
            }
            // In place, cut just before the first route's filters, with a pause longer than the settle window: the
            // first part drops the open route and the first route's JwtAuth, so it is held back (for five windows),
            // and the whole file that follows is applied instead.
            newest.set(++n);
            String text = generation(n);
            int cut = text.indexOf("    filters:");
            writeInPlace(yaml, SHORT_SETTLE.plusSeconds(1), text.substring(0, cut), text.substring(cut));
            awaitApplied(gw, n);

            newest.set(++n); // truncated to nothing first, then written whole
            writeInPlace(yaml, WITHIN_SHORT, "", generation(n));
            awaitApplied(gw, n);
            newest.set(++n); // many small pieces, a tenth of a second apart
            text = generation(n);
            List<String> pieces = new ArrayList<>();
            for (int i = 0; i < text.length(); i += 40) {
                pieces.add(text.substring(i, Math.min(text.length(), i + 40)));
            }
            writeInPlace(yaml, Duration.ofMillis(100), pieces.toArray(String[]::new));
            awaitApplied(gw, n);
            newest.set(++n); // an atomic rename, the safe way
            renameOver(yaml, generation(n));
            awaitApplied(gw, n);

            assertNeverServedWithoutAToken(secured, newRoute, open);
            assertThat(newRoute.statuses().get(401)).isGreaterThan(10L);
        }
    }

    @Test
    void anotherFileOfTheFolderWrittenContinuouslyDoesNotStallTheWatch(@TempDir Path dir) throws Exception {
        Path yaml = dir.resolve("gateway.yaml");
        renameOver(yaml, generation(0));
        Path log = dir.resolve("access.log");
        AtomicBoolean writing = new AtomicBoolean(true);
        Thread logger = Thread.ofVirtual().start(() -> {
            try (OutputStream out = Files.newOutputStream(log, StandardOpenOption.CREATE,
                    StandardOpenOption.APPEND)) {
                while (writing.get()) {
                    out.write("127.0.0.1 GET /x 200\n".getBytes(StandardCharsets.US_ASCII));
                    out.flush();
                    Thread.sleep(20); // ~50 lines a second, each its own write: an access log under traffic
                }
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        try (ServedGateway gw = serve(yaml, true)) {
            renameOver(yaml, generation(1));
            long start = System.nanoTime();
            awaitApplied(gw, 1);
            assertThat(Duration.ofNanos(System.nanoTime() - start)).as("applied while the log kept changing")
                    .isLessThan(Duration.ofSeconds(15));
            assertThat(writing.get()).isTrue();
        } finally {
            writing.set(false);
            logger.join();
        }
        assertThat(Files.size(log)).isGreaterThan(0);
    }

    @Test
    void aReloadOfAnUnrelatedRouteKeepsTheJwksKeysWhileTheIdentityProviderIsDown(@TempDir Path dir)
            throws Exception {
        SigningKey key = Jwts.ec("ec-kept");
        TestOrigin idp = new TestOrigin().fallback(r -> JwtAuthTest.jwksReply(Jwts.jwks(key)));
        String yaml = """
                server:
                  address: 127.0.0.1
                  port: 0
                admin:
                  port: 0
                access-log:
                  enabled: false
                routes:
                  - id: secured
                    uri: %s
                    predicates: [ "Path=/secured/**" ]
                    filters:
                      - name: JwtAuth
                        args: { jwks-uri: "%s/jwks", jwks-timeout: 1s }
                  - id: other
                    uri: %s
                    predicates: [ "Path=/other/**" ]
                    filters: [ "AddResponseHeader=X-Generation, %s" ]
                """;
        Path file = dir.resolve("gateway.yaml");
        renameOver(file, yaml.formatted(origin.uri(), idp.uri(), origin.uri(), "1"));
        try (ServedGateway gw = serve(file, false)) {
            HttpRequest secured = HttpRequest.newBuilder(uri(gw.port(), "/secured/x"))
                    .header("Authorization", "Bearer " + key.token()).timeout(Duration.ofSeconds(10)).build();
            assertThat(send(secured).statusCode()).isEqualTo(200);
            assertThat(idp.requestCount()).isEqualTo(1);

            idp.close(); // the identity provider is down from here on
            renameOver(file, yaml.formatted(origin.uri(), idp.uri(), origin.uri(), "2"));
            ConfigReloads.Result r = gw.reload();
            assertThat(r.outcome()).as(r.message()).isEqualTo("applied");
            assertThat(get(gw.port(), "/other/x").headers().firstValue("X-Generation")).hasValue("2");

            HttpResponse<String> after = send(secured);
            assertThat(after.statusCode()).as("a valid token after the reload: " + after.body()).isEqualTo(200);
        } finally {
            idp.close();
        }
    }

    /** Stops the hammers: no secured route answered without a token, the open one always did. */
    private static void assertNeverServedWithoutAToken(Hammer secured, Hammer newRoute, Hammer open)
            throws InterruptedException {
        secured.stop();
        newRoute.stop();
        open.stop();
        assertThat(secured.statuses()).as("the secured route without a token").containsOnlyKeys(401);
        assertThat(newRoute.statuses()).as("each new secured route without a token: not there yet, or 401")
                .containsOnlyKeys(404, 401);
        assertThat(open.statuses()).as("the open route the whole time").containsOnlyKeys(200);
    }

    // ---- writing the file ----

    /** As an editor that saves safely, or the kubelet: the new file complete, then renamed over the old one. */
    private static void renameOver(Path file, String text) throws Exception {
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        Files.writeString(tmp, text);
        Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }

    /** As {@code cat > file} or a slow mount: truncated, then each part written and flushed, a pause between. */
    private static void writeInPlace(Path file, Duration pause, String... parts) throws Exception {
        try (OutputStream out = Files.newOutputStream(file, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            for (int i = 0; i < parts.length; i++) {
                if (i > 0) {
                    Thread.sleep(pause); // the writer's own pause: the behaviour under test, not a readiness wait
                }
                out.write(parts[i].getBytes(StandardCharsets.UTF_8));
                out.flush();
            }
        }
    }

    // ---- asking the gateway ----

    /** Waits until generation n serves: every route of it, in file order, its newest answering 401 without token. */
    private static void awaitApplied(ServedGateway gw, int n) throws Exception {
        List<String> expected = new ArrayList<>(List.of("secured", "open"));
        for (int k = 1; k <= n; k++) {
            expected.add("gen-" + k);
        }
        long deadline = System.nanoTime() + APPLIED_WITHIN.toNanos();
        while (System.nanoTime() < deadline) {
            if (gw.routeIds().contains("gen-" + n)) {
                assertThat(gw.routeIds()).isEqualTo(expected);
                assertThat(get(gw.port(), "/gen/" + n + "/probe").statusCode()).isEqualTo(401);
                return;
            }
            Thread.sleep(20);
        }
        throw new AssertionError("generation " + n + " not applied within " + APPLIED_WITHIN + "; routes "
                + gw.routeIds());
    }

    private static URI uri(int port, String path) {
        return URI.create("http://127.0.0.1:" + port + path);
    }

    private static HttpResponse<String> get(int port, String path) throws Exception {
        return send(HttpRequest.newBuilder(uri(port, path)).timeout(Duration.ofSeconds(10)).build());
    }

    private static HttpResponse<String> send(HttpRequest request) throws Exception {
        return HTTP.send(request, HttpResponse.BodyHandlers.ofString());
    }

    /** Requests back to back on a few virtual threads, counting the statuses. */
    private static final class Hammer implements AutoCloseable {
        private final Map<Integer, AtomicLong> statuses = new ConcurrentHashMap<>();
        private final AtomicBoolean running = new AtomicBoolean(true);
        private final List<Thread> threads = new ArrayList<>();

        Hammer(int port, Supplier<String> path, int workers) {
            for (int i = 0; i < workers; i++) {
                threads.add(Thread.ofVirtual().start(() -> {
                    while (running.get()) {
                        int status;
                        try {
                            status = send(HttpRequest.newBuilder(uri(port, path.get()))
                                    .timeout(Duration.ofSeconds(10)).build()).statusCode();
                        } catch (Exception e) {
                            status = -1;
                        }
                        statuses.computeIfAbsent(status, s -> new AtomicLong()).incrementAndGet();
                    }
                }));
            }
        }

        void stop() throws InterruptedException {
            running.set(false);
            for (Thread t : threads) {
                t.join();
            }
        }

        Map<Integer, Long> statuses() {
            Map<Integer, Long> out = new java.util.TreeMap<>();
            statuses.forEach((k, v) -> out.put(k, v.get()));
            return out;
        }

        @Override
        public void close() throws InterruptedException {
            stop();
        }
    }
}
