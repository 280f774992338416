package io.loomgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.grpc.ManagedChannel;
import io.grpc.stub.ClientCalls;
import io.loomgate.testkit.FreePorts;
import io.loomgate.testkit.JarProcess;
import io.loomgate.testkit.TestOrigin;
import io.loomgate.testkit.TestOrigin.Reply;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The packaged gateway with tracing on at ratio 1.0 exports to a real collector (Jaeger, see {@link Jaeger}), and the
 * spans read back from Jaeger's query API are the ones the issue asks for: a retried request is one server span
 * (child of the client's traceparent, its id the one the origin's traceparent does not carry) with two client spans
 * under it, one per attempt, each with the span id its attempt sent upstream; a gRPC call is a server span with the
 * RPC attributes and a client span under it; concurrent gRPC calls on one HTTP/2 connection, each with its own
 * traceparent, each get their server span under their own parent (a stream's context never leaks to another's), and
 * the spans that share a connection are linked (Jaeger's FOLLOWS_FROM references): each stream's server span but the
 * connection's first to that first one's, each attempt's client span on the shared upstream HTTP/2 connection but its
 * first to that first one's.
 */
class TracingJaegerIT {
    private static final String SERVICE = "loomgate-it";

    @Test
    void aRetriedRequestAndAGrpcCallAreExportedAsTheirSpans(@TempDir Path dir) throws Exception {
        try (Jaeger jaeger = Jaeger.start(dir);
             TestOrigin origin = new TestOrigin();
             GrpcEcho grpc = new GrpcEcho()) {
            origin.enqueue(Reply.status(503), Reply.ok("second time lucky"));
            Path yaml = dir.resolve("gateway.yaml");
            Files.writeString(yaml, """
                    server:
                      address: 127.0.0.1
                    routes:
                      - id: flaky
                        uri: ${ORIGIN}
                        predicates: [ "Path=/flaky/**" ]
                        filters:
                          - name: Retry
                            args: { retries: 1, statuses: 503, methods: GET }
                      - id: rpc
                        uri: h2c://127.0.0.1:${GRPC_PORT}
                        predicates: [ "Path=/test.Echo/**" ]
                      - id: dead
                        uri: http://127.0.0.1:${DEAD_PORT}
                        predicates: [ "Path=/dead/**" ]
                    tracing:
                      enabled: true
                      endpoint: ${OTLP}
                      sampler: 1.0
                      service-name: %s
                    """.formatted(SERVICE));
            int deadPort = FreePorts.refused(); // held, never listening: connect is refused
            try (JarProcess gw = JarProcess.start(JarProcess.gatewayJar(), List.of("-Xmx128m"),
                    List.of("serve", "--config", yaml.toString(), "--port", "0", "--admin-port", "0"),
                    Map.of("ORIGIN", origin.uri(), "GRPC_PORT", Integer.toString(grpc.port()),
                            "DEAD_PORT", Integer.toString(deadPort), "OTLP", jaeger.otlpEndpoint()))) {
                int port = gw.awaitListening(Duration.ofSeconds(30));
                retriedRequest(jaeger, origin, port);
                grpcCall(jaeger, port);
                concurrentStreams(jaeger, port);
                upstreamFailure(jaeger, port);
            }
        }
    }

    private static void retriedRequest(Jaeger jaeger, TestOrigin origin, int port) throws Exception {
        String traceId = "4bf92f3577b34da6a3ce929d0e0e4736";
        String clientSpan = "00f067aa0ba902b7";
        HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + port + "/flaky/thing?x=1"))
                .header("traceparent", "00-" + traceId + "-" + clientSpan + "-01")
                .timeout(Duration.ofSeconds(20)).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.body()).isEqualTo("second time lucky");
        List<String> sentUpstream = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            String tp = origin.takeRequest().header("traceparent");
            assertThat(tp).startsWith("00-" + traceId + "-").endsWith("-01");
            sentUpstream.add(tp.substring(36, 52));
        }
        assertThat(sentUpstream.get(0)).isNotEqualTo(sentUpstream.get(1));

        JsonNode trace = jaeger.awaitTrace(SERVICE, t -> t.path("traceID").asText().equals(traceId)
                && t.path("spans").size() >= 3, Duration.ofSeconds(30));
        List<JsonNode> spans = list(trace.path("spans"));
        assertThat(spans).hasSize(3);
        List<JsonNode> servers = spans.stream().filter(s -> "server".equals(tag(s, "span.kind"))).toList();
        List<JsonNode> clients = spans.stream().filter(s -> "client".equals(tag(s, "span.kind"))).toList();
        assertThat(servers).hasSize(1);
        assertThat(clients).hasSize(2);
        JsonNode server = servers.get(0);
        assertThat(parentOf(server)).isEqualTo(clientSpan);
        assertThat(server.path("operationName").asText()).isEqualTo("GET flaky");
        assertThat(tag(server, "http.request.method")).isEqualTo("GET");
        assertThat(tag(server, "http.route")).isEqualTo("flaky");
        assertThat(tag(server, "url.path")).isEqualTo("/flaky/thing");
        assertThat(tag(server, "http.response.status_code")).isEqualTo("200");
        assertThat(tag(server, "network.protocol.version")).isEqualTo("1.1");
        assertThat(tag(server, "server.address")).isEqualTo("127.0.0.1");
        assertThat(tag(server, "loomgate.route")).isEqualTo("flaky");
        assertThat(tag(server, "loomgate.retries")).isEqualTo("1");
        assertThat(tag(server, "loomgate.endpoint")).isEqualTo("127.0.0.1:" + origin.port());

        String serverId = server.path("spanID").asText();
        assertThat(sentUpstream).doesNotContain(serverId);
        Map<String, JsonNode> byId = new HashMap<>();
        clients.forEach(c -> byId.put(c.path("spanID").asText(), c));
        assertThat(byId.keySet()).containsExactlyInAnyOrderElementsOf(sentUpstream);
        JsonNode first = byId.get(sentUpstream.get(0));
        JsonNode second = byId.get(sentUpstream.get(1));
        for (JsonNode c : List.of(first, second)) {
            assertThat(parentOf(c)).as("client span's parent").isEqualTo(serverId);
            assertThat(c.path("operationName").asText()).isEqualTo("GET");
            assertThat(tag(c, "server.address")).isEqualTo("127.0.0.1");
            assertThat(tag(c, "server.port")).isEqualTo(Integer.toString(origin.port()));
        }
        assertThat(tag(first, "http.response.status_code")).isEqualTo("503");
        assertThat(tag(first, "error.type")).isEqualTo("503");
        assertThat(tag(first, "http.request.resend_count")).isNull();
        assertThat(tag(second, "http.response.status_code")).isEqualTo("200");
        assertThat(tag(second, "http.request.resend_count")).isEqualTo("1");
        assertThat(tag(second, "error.type")).isNull();
    }

    /** An origin that refuses the connection: the 502's spans say why in error.type, and are errors. */
    private static void upstreamFailure(Jaeger jaeger, int port) throws Exception {
        String traceId = "6bf92f3577b34da6a3ce929d0e0e4736";
        HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + port + "/dead/x"))
                .header("traceparent", "00-" + traceId + "-00f067aa0ba902b7-01")
                .timeout(Duration.ofSeconds(20)).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).isEqualTo(502);
        JsonNode trace = jaeger.awaitTrace(SERVICE, t -> t.path("traceID").asText().equals(traceId)
                && t.path("spans").size() >= 2, Duration.ofSeconds(30));
        List<JsonNode> spans = list(trace.path("spans"));
        assertThat(spans).hasSize(2);
        for (JsonNode s : spans) {
            assertThat(tag(s, "error.type")).as(tag(s, "span.kind") + " span").isEqualTo("connect_refused");
            assertThat(tag(s, "otel.status_code")).as(tag(s, "span.kind") + " span").isEqualTo("ERROR");
        }
        JsonNode server = spans.stream().filter(s -> "server".equals(tag(s, "span.kind"))).findFirst().orElseThrow();
        assertThat(tag(server, "http.response.status_code")).isEqualTo("502");
    }

    private static void grpcCall(Jaeger jaeger, int port) throws Exception {
        ManagedChannel channel = GrpcEcho.plaintext(port);
        try {
            byte[] answer = ClientCalls.blockingUnaryCall(channel, GrpcEcho.UNARY, GrpcEcho.deadline(20),
                    GrpcEcho.text("traced"));
            assertThat(GrpcEcho.text(answer)).isEqualTo("traced");
        } finally {
            GrpcEcho.close(channel);
        }
        JsonNode trace = jaeger.awaitTrace(SERVICE, t -> list(t.path("spans")).stream()
                .anyMatch(s -> "grpc".equals(tag(s, "rpc.system"))), Duration.ofSeconds(30));
        List<JsonNode> spans = list(trace.path("spans"));
        assertThat(spans).hasSize(2);
        JsonNode server = spans.stream().filter(s -> "server".equals(tag(s, "span.kind"))).findFirst().orElseThrow();
        JsonNode client = spans.stream().filter(s -> "client".equals(tag(s, "span.kind"))).findFirst().orElseThrow();
        assertThat(server.path("references").size()).as("a trace the gateway started").isZero();
        assertThat(server.path("operationName").asText()).isEqualTo("test.Echo/Unary");
        assertThat(tag(server, "http.route")).isEqualTo("rpc");
        assertThat(tag(server, "rpc.system")).isEqualTo("grpc");
        assertThat(tag(server, "rpc.service")).isEqualTo("test.Echo");
        assertThat(tag(server, "rpc.method")).isEqualTo("Unary");
        assertThat(tag(server, "rpc.grpc.status_code")).isEqualTo("0");
        assertThat(tag(server, "network.protocol.version")).isEqualTo("2");
        assertThat(tag(server, "http.response.status_code")).isEqualTo("200");
        assertThat(parentOf(client)).isEqualTo(server.path("spanID").asText());
        assertThat(tag(client, "http.response.status_code")).isEqualTo("200");
        assertThat(client.path("operationName").asText()).isEqualTo("test.Echo/Unary");
        assertThat(tag(client, "rpc.system")).isEqualTo("grpc");
        assertThat(tag(client, "rpc.service")).isEqualTo("test.Echo");
        assertThat(tag(client, "rpc.method")).isEqualTo("Unary");
        assertThat(tag(client, "rpc.grpc.status_code")).isEqualTo("0");
    }

    private static void concurrentStreams(Jaeger jaeger, int port) throws Exception {
        ManagedChannel channel = GrpcEcho.plaintext(port); // one HTTP/2 connection: the calls are its streams
        int calls = 4;
        List<String> traceIds = new ArrayList<>();
        List<String> parents = new ArrayList<>();
        List<java.util.concurrent.CompletableFuture<String>> answers = new ArrayList<>();
        try {
            for (int i = 0; i < calls; i++) {
                // A high half with no leading zero: Jaeger's JSON drops leading zeros of a trace id.
                String traceId = "4bf92f3577b34da6%016x".formatted(0xabc0L + i);
                String parent = "%016x".formatted(0xdef0L + i);
                traceIds.add(traceId);
                parents.add(parent);
                io.grpc.Metadata headers = new io.grpc.Metadata();
                headers.put(io.grpc.Metadata.Key.of("traceparent", io.grpc.Metadata.ASCII_STRING_MARSHALLER),
                        "00-" + traceId + "-" + parent + "-01");
                java.util.concurrent.CompletableFuture<String> answer = new java.util.concurrent.CompletableFuture<>();
                ClientCalls.asyncUnaryCall(io.grpc.ClientInterceptors.intercept(channel,
                                io.grpc.stub.MetadataUtils.newAttachHeadersInterceptor(headers))
                        .newCall(GrpcEcho.UNARY, GrpcEcho.deadline(20)), GrpcEcho.text("sleep 300"),
                        GrpcEcho.observer(answer));
                answers.add(answer);
            }
            for (var a : answers) {
                assertThat(a.get(30, java.util.concurrent.TimeUnit.SECONDS)).isEqualTo("slept");
            }
        } finally {
            GrpcEcho.close(channel);
        }
        List<JsonNode> servers = new ArrayList<>();
        List<JsonNode> clients = new ArrayList<>();
        for (int i = 0; i < calls; i++) {
            String traceId = traceIds.get(i);
            JsonNode trace = jaeger.awaitTrace(SERVICE, t -> t.path("traceID").asText().equals(traceId)
                    && t.path("spans").size() >= 2, Duration.ofSeconds(30));
            List<JsonNode> spans = list(trace.path("spans"));
            assertThat(spans).as("trace " + traceId).hasSize(2);
            JsonNode server = spans.stream().filter(s -> "server".equals(tag(s, "span.kind"))).findFirst()
                    .orElseThrow();
            assertThat(parentOf(server)).as("server span of call " + i).isEqualTo(parents.get(i));
            JsonNode client = spans.stream().filter(s -> "client".equals(tag(s, "span.kind"))).findFirst()
                    .orElseThrow();
            assertThat(parentOf(client)).isEqualTo(server.path("spanID").asText());
            servers.add(server);
            clients.add(client);
        }
        // One client connection: its first stream's server span is linked to by the three others.
        List<JsonNode> unlinked = servers.stream().filter(s -> linksOf(s).isEmpty()).toList();
        assertThat(unlinked).as("the connection's first traced stream").hasSize(1);
        String first = id(unlinked.get(0).path("spanID").asText());
        for (JsonNode s : servers) {
            if (s != unlinked.get(0)) {
                assertThat(linksOf(s)).as("a later stream's links").containsExactly(first);
            }
        }
        // One upstream HTTP/2 connection (kept from the earlier call, or opened by one of these): every attempt on it
        // links to its first attempt, or is that one.
        List<String> upstreamFirst = clients.stream().flatMap(c -> linksOf(c).stream()).distinct().toList();
        assertThat(upstreamFirst).as("the upstream connection's first traced attempt").hasSize(1);
        for (JsonNode c : clients) {
            assertThat(linksOf(c).isEmpty() ? List.of(id(c.path("spanID").asText())) : linksOf(c))
                    .containsExactlyElementsOf(upstreamFirst);
        }
    }

    /** The span ids a span links to (Jaeger shows an OpenTelemetry link as a FOLLOWS_FROM reference). */
    private static List<String> linksOf(JsonNode span) {
        List<String> ids = new ArrayList<>();
        for (JsonNode ref : span.path("references")) {
            if (ref.path("refType").asText().equals("FOLLOWS_FROM")) {
                ids.add(id(ref.path("spanID").asText()));
            }
        }
        return ids;
    }

    /** A span id as Jaeger's JSON may write it (leading zeros dropped), padded back to 16 hex digits. */
    private static String id(String spanId) {
        return "0".repeat(Math.max(0, 16 - spanId.length())) + spanId;
    }

    private static List<JsonNode> list(JsonNode array) {
        return StreamSupport.stream(array.spliterator(), false).toList();
    }

    /** A span's tag as text (Jaeger's JSON keeps numbers as numbers); null when absent. */
    private static String tag(JsonNode span, String key) {
        for (JsonNode t : span.path("tags")) {
            if (t.path("key").asText().equals(key)) {
                return t.path("value").asText();
            }
        }
        return null;
    }

    /** The span id of a span's CHILD_OF reference, or null. */
    private static String parentOf(JsonNode span) {
        for (JsonNode ref : span.path("references")) {
            if (ref.path("refType").asText().equals("CHILD_OF")) {
                return ref.path("spanID").asText();
            }
        }
        return null;
    }
}
