package io.loomgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.loomgate.it.MatrixClient.Outcome;
import io.loomgate.it.MatrixClient.Send;
import io.loomgate.it.MatrixClient.Shape;
import io.loomgate.testkit.FreePorts;
import io.loomgate.testkit.JarProcess;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Tracing on across a representative part of the traffic matrix ({@link TrafficMatrixTest}'s clients and origin):
 * each listener kind (HTTP/1.1, h2c) × each upstream kind (HTTP/1.1, h2c, one that refuses the connection) × the body
 * shapes whose spans differ (none, 64 KiB, the origin closing before it answers, the client aborting mid-body), through
 * the packaged gateway exporting at ratio 1.0 to a real Jaeger. Each cell's exchange is exported as a server span
 * with its status; the trace id Jaeger got is the one the origin's traceparent carried; the attempt is a client span
 * under it; a failed exchange (the origin's or the client's doing) carries {@code error.type} and, when the gateway
 * answered it with a 5xx, an error status.
 */
class TracingMatrixIT {
    private static final String SERVICE = "loomgate-matrix";

    enum Down { H1, H2C }

    enum Up {
        HTTP("http", false), H2C("h2c", false), REFUSED("refused", true);

        final String label;
        final boolean faulty;

        Up(String label, boolean faulty) {
            this.label = label;
            this.faulty = faulty;
        }
    }

    enum Body {
        NONE("GET", "down", 0, Shape.WHOLE),
        KIB_64("POST", "echo", 64 * 1024, Shape.WHOLE),
        ORIGIN_RESET("POST", "reset", 64 * 1024, Shape.WHOLE),
        CLIENT_ABORT("POST", "echo", MatrixBodies.MIB, Shape.ABORT);

        final String method;
        final String op;
        final int length;
        final Shape shape;

        Body(String method, String op, int length, Shape shape) {
            this.method = method;
            this.op = op;
            this.length = length;
            this.shape = shape;
        }
    }

    @Test
    void everyCellsExchangeIsExportedWithItsStatusAndItsFailure(@TempDir Path dir) throws Exception {
        int refused = FreePorts.refused(); // held, never listening: connect is refused
        try (Jaeger jaeger = Jaeger.start(dir); MatrixOrigin origin = MatrixOrigin.plain()) {
            Path yaml = dir.resolve("gateway.yaml");
            Files.writeString(yaml, """
                    server:
                      address: 127.0.0.1
                    routes:
                      - id: http
                        uri: http://127.0.0.1:%1$d
                        predicates: [ "Path=/http/**" ]
                      - id: h2c
                        uri: h2c://127.0.0.1:%1$d
                        predicates: [ "Path=/h2c/**" ]
                      - id: refused
                        uri: http://127.0.0.1:%2$d
                        predicates: [ "Path=/refused/**" ]
                    tracing:
                      enabled: true
                      endpoint: ${OTLP}
                      sampler: 1.0
                      service-name: %3$s
                    """.formatted(origin.port(), refused, SERVICE));
            try (JarProcess gw = JarProcess.start(JarProcess.gatewayJar(), List.of("-Xmx128m"),
                    List.of("serve", "--config", yaml.toString(), "--port", "0", "--admin-port", "0"),
                    Map.of("OTLP", jaeger.otlpEndpoint()))) {
                int port = gw.awaitListening(Duration.ofSeconds(30));
                Path bodies = MatrixClient.Curl.writeBodies(dir, 64 * 1024, MatrixBodies.MIB);
                List<String> failures = new ArrayList<>();
                // Every cell's exchange first, then every cell's trace: the batch processor exports about a second
                // after a span ends, and waiting for each trace before the next exchange spent that second per cell.
                List<Exchanged> exchanged = new ArrayList<>();
                int n = 0;
                for (Down down : Down.values()) {
                    MatrixClient client = down == Down.H1 ? new MatrixClient.H1(port, null)
                            : new MatrixClient.Curl(port, null, bodies);
                    for (Up up : Up.values()) {
                        for (Body body : Body.values()) {
                            if (up.faulty && (body == Body.ORIGIN_RESET || body == Body.CLIENT_ABORT)) {
                                continue; // the connection fails before a body byte moves: nothing more to see
                            }
                            String id = "t" + (n++);
                            String cell = down + " → " + up.label + " | " + body;
                            String path = "/" + up.label + "/plain/" + body.op + "/" + id;
                            try {
                                Outcome o = client.exchange(new Send(body.method, path, id, body.length, false,
                                        body.shape));
                                exchanged.add(new Exchanged(cell, up, body, id, path, o));
                            } catch (AssertionError | Exception e) {
                                failures.add(cell + ": " + e.getMessage());
                            }
                        }
                    }
                }
                for (Exchanged e : exchanged) {
                    try {
                        spansOf(jaeger, origin, e);
                    } catch (AssertionError | Exception x) {
                        failures.add(e.cell() + ": " + x.getMessage());
                    }
                }
                assertThat(failures).as("cells whose spans were not as expected").isEmpty();
            }
        }
    }

    /** A cell's exchange, done: what the client saw, and where its trace is to be found. */
    private record Exchanged(String cell, Up up, Body body, String id, String path, Outcome outcome) {
    }

    private static void spansOf(Jaeger jaeger, MatrixOrigin origin, Exchanged e) throws Exception {
        Up up = e.up();
        Body body = e.body();
        String id = e.id();
        String path = e.path();
        Outcome o = e.outcome();
        JsonNode trace = jaeger.awaitTrace(SERVICE, t -> server(t) != null
                && path.equals(tag(server(t), "url.path")), Duration.ofSeconds(30));
        JsonNode server = server(trace);
        List<JsonNode> clients = list(trace.path("spans")).stream()
                .filter(s -> "client".equals(tag(s, "span.kind"))).toList();
        assertThat(clients).as("the attempt's client span").hasSize(1);
        JsonNode attempt = clients.get(0);
        assertThat(parentOf(attempt)).isEqualTo(server.path("spanID").asText());
        if (!up.faulty) {
            String sent = origin.traceparent(id);
            assertThat(sent).as("the traceparent the origin got").isNotNull();
            assertThat(stripZeros(trace.path("traceID").asText())).as("the trace id")
                    .isEqualTo(stripZeros(sent.substring(3, 35)));
            assertThat(id(attempt.path("spanID").asText())).isEqualTo(sent.substring(36, 52));
        }
        if (up.faulty) {
            assertThat(o.status()).isEqualTo(502);
            assertThat(tag(server, "http.response.status_code")).isEqualTo("502");
            assertThat(tag(server, "error.type")).isEqualTo("connect_refused");
            assertThat(tag(attempt, "error.type")).isEqualTo("connect_refused");
            assertThat(tag(server, "otel.status_code")).isEqualTo("ERROR");
            return;
        }
        switch (body) {
            case NONE, KIB_64 -> {
                assertThat(o.status()).isEqualTo(200);
                assertThat(tag(server, "http.response.status_code")).isEqualTo("200");
                assertThat(tag(server, "error.type")).isNull();
                assertThat(tag(server, "otel.status_code")).isNotEqualTo("ERROR");
                assertThat(tag(attempt, "http.response.status_code")).isEqualTo("200");
            }
            case ORIGIN_RESET -> {
                assertThat(o.status()).isEqualTo(502);
                assertThat(tag(server, "http.response.status_code")).isEqualTo("502");
                assertThat(tag(server, "error.type")).as("the server span's error.type").startsWith("upstream_");
                assertThat(tag(attempt, "error.type")).as("the client span's error.type").startsWith("upstream_");
                assertThat(tag(server, "otel.status_code")).isEqualTo("ERROR");
            }
            case CLIENT_ABORT ->
                    assertThat(tag(server, "error.type")).as("the server span's error.type").isEqualTo("client_aborted");
            default -> throw new AssertionError(body);
        }
    }

    /** The trace's server span, or null. */
    private static JsonNode server(JsonNode trace) {
        for (JsonNode s : trace.path("spans")) {
            if ("server".equals(tag(s, "span.kind"))) {
                return s;
            }
        }
        return null;
    }

    private static List<JsonNode> list(JsonNode array) {
        return StreamSupport.stream(array.spliterator(), false).toList();
    }

    /** A span's tag as text; null when absent. */
    private static String tag(JsonNode span, String key) {
        for (JsonNode t : span.path("tags")) {
            if (t.path("key").asText().equals(key)) {
                return t.path("value").asText();
            }
        }
        return null;
    }

    private static String parentOf(JsonNode span) {
        for (JsonNode ref : span.path("references")) {
            if (ref.path("refType").asText().equals("CHILD_OF")) {
                return ref.path("spanID").asText();
            }
        }
        return null;
    }

    /** Jaeger's JSON drops an id's leading zeros. */
    private static String stripZeros(String hex) {
        String s = hex.replaceFirst("^0+", "");
        return s.isEmpty() ? "0" : s;
    }

    private static String id(String spanId) {
        return "0".repeat(Math.max(0, 16 - spanId.length())) + spanId;
    }
}
