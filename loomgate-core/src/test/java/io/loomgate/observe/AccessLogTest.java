package io.loomgate.observe;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.loomgate.proxy.ExchangeView;
import io.loomgate.proxy.ProxyFailure;
import io.loomgate.testkit.EcsSchema;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/** One line per exchange, in either format, written off the request thread; a full queue drops and counts. */
class AccessLogTest {
    private static final long START = 1_795_000_000_000L; // 2026-11-18T11:06:40Z

    private static AccessEntry entry(FakeExchange x) {
        return AccessEntry.of(x, START + x.totalNanos() / 1_000_000);
    }

    @Test
    void theCombinedTimeIsWhatTheJdksFormatterWrites() {
        // Written by hand since session 44 (the formatter's month name loads the JDK's locale data at the first
        // answer): every month and day, both ends of the day, leap days, and years either side of 0-9999.
        java.util.SplittableRandom random = new java.util.SplittableRandom(44);
        List<Long> seconds = new java.util.ArrayList<>(List.of(0L, -1L, 951_782_400L, 4_107_542_399L,
                -62_167_219_200L, -62_167_219_201L, 253_402_300_799L, 253_402_300_800L));
        for (int i = 0; i < 20_000; i++) {
            seconds.add(random.nextLong(-3_000_000_000L, 5_000_000_000L));
        }
        for (long s : seconds) {
            assertThat(AccessLogFormat.clfSecond(s)).as("second %d", s)
                    .isEqualTo(AccessLogFormat.CLF_TIME.format(java.time.Instant.ofEpochSecond(s)));
        }
    }

    @Test
    void combinedLineIsApacheCombinedExactly() {
        FakeExchange x = FakeExchange.ok("users", "GET", 200, 12).withBytes(3, 512);
        assertThat(AccessLogFormat.COMBINED.format(entry(x))).isEqualTo(
                "127.0.0.1 - - [18/Nov/2026:11:06:40 +0000] \"GET /r/users HTTP/1.1\" 200 512 \"-\" \"-\"");
    }

    /**
     * An exchange that sent no response head (status 0: its client left) is written 499, nginx's "client closed
     * request", not '-', which GoAccess counts as an invalid line (session 60).
     */
    @Test
    void combinedLineEscapesQuotesAndMarksWhatIsMissing() {
        FakeExchange x = new FakeExchange(null, "GET", "/a\"b\\c", "[::1]:5000", null, null, 0, 0, -1, 1_000_000, 0,
                0, null, null).failedWith(ProxyFailure.Kind.CLIENT_ABORTED, 0);
        assertThat(AccessLogFormat.COMBINED.format(entry(x))).isEqualTo(
                "[::1] - - [18/Nov/2026:11:06:40 +0000] \"GET /a\\x22b\\x5cc HTTP/1.1\" 499 - \"-\" \"-\"");
    }

    @Test
    void thePrincipalIsTheCombinedUserFieldAndEcsUserName() throws Exception {
        FakeExchange plain = FakeExchange.ok("users", "GET", 200, 12);
        ExchangeView x = (ExchangeView) java.lang.reflect.Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {ExchangeView.class}, (proxy, method, args) -> method.getName().equals("principal")
                        ? "alice smith" : method.invoke(plain, args));
        AccessEntry e = AccessEntry.of(x, START + 12);
        assertThat(AccessLogFormat.COMBINED.format(e)).startsWith("127.0.0.1 - alice\\x20smith [18/Nov/2026");
        assertThat(new ObjectMapper().readTree(AccessLogFormat.JSON.format(e)).get("user.name").asText())
                .isEqualTo("alice smith");
        assertThat(new ObjectMapper().readTree(AccessLogFormat.JSON.format(entry(plain))).has("user.name"))
                .isFalse();
    }

    @Test
    void aGrpcCallCarriesItsStatusInJsonAndCombinedStaysApachesLayout() throws Exception {
        FakeExchange x = FakeExchange.ok("rpc", "POST", 200, 12).withBytes(3, 512);
        AccessEntry grpc = AccessEntry.of(x.asGrpc(14), START + 12);
        assertThat(AccessLogFormat.COMBINED.format(grpc)).endsWith(" 200 512 \"-\" \"-\"");
        assertThat(new ObjectMapper().readTree(AccessLogFormat.JSON.format(grpc)).get("loomgate.grpc_status").asInt())
                .isEqualTo(14);
        assertThat(new ObjectMapper().readTree(AccessLogFormat.JSON.format(entry(x))).has("loomgate.grpc_status"))
                .isFalse();
    }

    /** The json line is an ECS document: every field by its ECS name (or under {@code loomgate.}), nothing else. */
    @Test
    void jsonLineIsAnEcsDocumentFieldByField() throws Exception {
        AccessEntry e = new AccessEntry(START + 120, "10.0.0.7", "POST", "/users/42?x=1", 201, 512, 3, 12_345_678,
                6_000_000, "users", "up-users", "10.0.0.9:8080", "4bf92f3577b34da6a3ce929d0e0e4736",
                "00f067aa0ba902b7", null, "alice", -1, "HTTP/1.1", "https://app.example/", "curl/8.5.0", 3);
        JsonNode n = new ObjectMapper().readTree(AccessLogFormat.JSON.format(e));
        assertThat(n.get("@timestamp").asText()).isEqualTo("2026-11-18T11:06:40.120Z");
        assertThat(java.time.Instant.parse(n.get("@timestamp").asText()).toEpochMilli()).isEqualTo(START + 120);
        assertThat(n.get("log.level").asText()).isEqualTo("INFO");
        assertThat(n.get("log.logger").asText()).isEqualTo("loomgate.access");
        assertThat(n.get("ecs.version").asText()).isEqualTo("1.2.0");
        assertThat(n.get("event.dataset").asText()).isEqualTo("loomgate.access");
        assertThat(n.get("service.name").asText()).isEqualTo("loomgate");
        assertThat(n.get("message").asText()).isEqualTo("POST /users/42?x=1 201");
        assertThat(n.get("client.address").asText()).isEqualTo("10.0.0.7");
        assertThat(n.get("http.version").asText()).isEqualTo("1.1");
        assertThat(n.get("http.request.method").asText()).isEqualTo("POST");
        assertThat(n.get("url.original").asText()).isEqualTo("/users/42?x=1");
        assertThat(n.get("url.path").asText()).isEqualTo("/users/42");
        assertThat(n.get("url.query").asText()).isEqualTo("x=1");
        assertThat(n.get("http.response.status_code").asInt()).isEqualTo(201);
        assertThat(n.get("http.response.body.bytes").asLong()).isEqualTo(512);
        assertThat(n.get("http.request.body.bytes").asLong()).isEqualTo(3);
        assertThat(n.get("http.request.referrer").asText()).isEqualTo("https://app.example/");
        assertThat(n.get("user_agent.original").asText()).isEqualTo("curl/8.5.0");
        assertThat(n.get("user.name").asText()).isEqualTo("alice");
        assertThat(n.get("event.duration").asLong()).isEqualTo(12_345_678);
        assertThat(n.get("trace.id").asText()).isEqualTo("4bf92f3577b34da6a3ce929d0e0e4736");
        assertThat(n.get("span.id").asText()).isEqualTo("00f067aa0ba902b7");
        assertThat(n.get("loomgate.route").asText()).isEqualTo("users");
        assertThat(n.get("loomgate.upstream").asText()).isEqualTo("up-users");
        assertThat(n.get("loomgate.endpoint").asText()).isEqualTo("10.0.0.9:8080");
        assertThat(n.get("loomgate.upstream_duration").asLong()).isEqualTo(6_000_000);
        assertThat(n.has("loomgate.failure")).isFalse();
        assertThat(n.has("loomgate.grpc_status")).isFalse();
        assertThat(n.get("loomgate.config_generation").asLong()).isEqualTo(3);
        List<String> names = new java.util.ArrayList<>();
        n.fieldNames().forEachRemaining(names::add);
        assertThat(names).hasSize(27);
        EcsSchema.assertValid(List.of(AccessLogFormat.JSON.format(e)));
    }

    /**
     * A failed exchange that sent nothing: its failure kind, status 499 (no response; session 60), and no field for
     * what never happened (upstream, trace).
     */
    @Test
    void jsonLeavesOutWhatNeverHappened() throws Exception {
        FakeExchange x = new FakeExchange(null, "GET", "/nowhere", "[::1]:5000", null, null, 0, 0, -1, 1_000_000, 0,
                0, null, null).failedWith(ProxyFailure.Kind.CLIENT_ABORTED, 0);
        String line = AccessLogFormat.JSON.format(entry(x));
        JsonNode n = new ObjectMapper().readTree(line);
        assertThat(n.get("@timestamp").asText()).isEqualTo("2026-11-18T11:06:40.000Z");
        assertThat(n.get("client.address").asText()).isEqualTo("::1");
        assertThat(n.get("url.path").asText()).isEqualTo("/nowhere");
        assertThat(n.has("url.query")).isFalse();
        assertThat(n.get("loomgate.failure").asText()).isEqualTo("client_aborted");
        assertThat(n.get("message").asText()).isEqualTo("GET /nowhere 499");
        assertThat(n.get("http.response.status_code").asInt()).isEqualTo(499);
        for (String absent : List.of("loomgate.route", "loomgate.upstream",
                "loomgate.endpoint", "loomgate.upstream_duration", "trace.id", "span.id", "user.name")) {
            assertThat(n.has(absent)).as(absent).isFalse();
        }
        EcsSchema.assertValid(List.of(line));
    }

    @Test
    void writesOneLinePerExchangeOnTheWriterThread() throws Exception {
        List<String> lines = new CopyOnWriteArrayList<>();
        List<String> threads = new CopyOnWriteArrayList<>();
        AccessLog log = new AccessLog(AccessLogFormat.COMBINED, 100, batch -> {
            lines.addAll(List.of(batch.split("\n")));
            threads.add(Thread.currentThread().getName());
        }, null).start();
        for (int i = 0; i < 10; i++) {
            log.exchangeEnd(FakeExchange.ok("users", "GET", 200, 1));
        }
        log.exchangeFailed(FakeExchange.ok("users", "GET", 200, 1).failedWith(ProxyFailure.Kind.CONNECT_REFUSED, 502));
        log.close();

        assertThat(lines).hasSize(11);
        assertThat(lines.get(10)).contains("\" 502 ");
        assertThat(threads).containsOnly("loomgate-access-log");
        assertThat(log.dropped()).isZero();
    }

    @Test
    void aFullQueueDropsCountsAndNeverBlocks() throws Exception {
        List<String> lines = new CopyOnWriteArrayList<>();
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        AccessLog log = new AccessLog(AccessLogFormat.JSON, 2, batch -> lines.addAll(List.of(batch.split("\n"))),
                registry);
        // The writer is not started yet, so the queue holds exactly 2.
        for (int i = 0; i < 5; i++) {
            log.exchangeEnd(FakeExchange.ok("users", "GET", 200, 1));
        }
        assertThat(log.dropped()).isEqualTo(3);
        assertThat(registry.get("loomgate.access.log.dropped").counter().count()).isEqualTo(3);
        assertThat(registry.get("loomgate.access.log.queued").gauge().value()).isEqualTo(2);

        log.start();
        log.close();
        assertThat(lines).hasSize(2).allSatisfy(l -> assertThat(l).startsWith("{").endsWith("}"));
        log.exchangeEnd(FakeExchange.ok("users", "GET", 200, 1));
        assertThat(log.dropped()).isEqualTo(4);
    }

    @Test
    void linesTheSinkFailsToWriteAreCountedAsDropped() throws Exception {
        AccessLog log = new AccessLog(AccessLogFormat.COMBINED, 10, batch -> {
            throw new IllegalStateException("disk full");
        }, null);
        for (int i = 0; i < 3; i++) {
            log.exchangeEnd(FakeExchange.ok("users", "GET", 200, 1));
        }
        log.start();
        log.close();
        assertThat(log.dropped()).isEqualTo(3);
        assertThat(log.written()).isZero();
    }

    @Test
    void aBatchIsOneLinePerEntryInOrder() {
        AccessLogFormat.Batch batch = new AccessLogFormat.Batch(AccessLogFormat.JSON);
        String text = batch.format(List.of(entry(FakeExchange.ok("a", "GET", 200, 1)),
                entry(FakeExchange.ok("b", "GET", 200, 1)), entry(FakeExchange.ok("c", "GET", 200, 1))));
        assertThat(text.split("\n")).hasSize(3)
                .satisfiesExactly(l -> assertThat(l).contains("\"loomgate.route\":\"a\""),
                        l -> assertThat(l).contains("\"loomgate.route\":\"b\""),
                        l -> assertThat(l).contains("\"loomgate.route\":\"c\""));
        assertThat(text).doesNotEndWith("\n");
    }

    @Test
    void formatNamesAreCheckedWithAClearMessage() {
        assertThat(AccessLogFormat.parse("JSON")).isEqualTo(AccessLogFormat.JSON);
        assertThat(AccessLogFormat.parse(" combined ")).isEqualTo(AccessLogFormat.COMBINED);
        assertThatThrownBy(() -> AccessLogFormat.parse("apache"))
                .hasMessage("access-log.format must be 'combined' or 'json', got 'apache'");
    }
}
