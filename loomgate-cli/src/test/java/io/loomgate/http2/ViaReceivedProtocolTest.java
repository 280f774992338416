package io.loomgate.http2;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.testkit.RawClient;
import io.loomgate.testkit.RunningGateway;
import io.loomgate.testkit.TestOrigin;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The gateway's {@code Via} entry names the protocol of the hop each message came over (RFC 9110 §7.6.3: its
 * received-protocol): the client's version on the request the origin gets, the origin's on the answer the client
 * gets. Found by session 55's combination hunt: every exchange said {@code 1.1 loomgate}, an HTTP/2 client's request
 * and an HTTP/2 origin's answer too (and two gateways in a row over h2c said {@code 1.1 loomgate, 1.1 loomgate}).
 * Each client kind × each origin kind, through one gateway with a route to each origin (real sockets, the gateway in
 * this JVM; the cases run one after another, each on its own path).
 */
class ViaReceivedProtocolTest {
    private static TestOrigin http;
    private static HostileH2Origin h2c;
    private static RunningGateway gw;

    @BeforeAll
    static void start() throws Exception {
        http = new TestOrigin();
        h2c = new HostileH2Origin(null);
        gw = RunningGateway.start("""
                server:
                  address: 127.0.0.1
                  port: 0
                admin:
                  port: 0
                routes:
                  - id: http
                    uri: ${HTTP}
                    predicates: [ "Path=/http/**" ]
                  - id: h2c
                    uri: ${H2C}
                    predicates: [ "Path=/h2c/**" ]
                """, Map.of("HTTP", http.uri(), "H2C", h2c.uri()));
    }

    @AfterAll
    static void stop() throws Exception {
        try {
            gw.close();
        } finally {
            http.close();
            h2c.close();
        }
    }

    @ParameterizedTest(name = "{0} client, {1} origin")
    @CsvSource({
            "HTTP/1.1, http, 1.1 loomgate, 1.1 loomgate",
            "HTTP/1.0, http, 1.0 loomgate, 1.1 loomgate",
            "HTTP/2,   http, 2 loomgate,   1.1 loomgate",
            "HTTP/1.1, h2c,  1.1 loomgate, 2 loomgate",
            "HTTP/1.0, h2c,  1.0 loomgate, 2 loomgate",
            "HTTP/2,   h2c,  2 loomgate,   2 loomgate"})
    void viaNamesTheProtocolOfEachHop(String client, String origin, String toOrigin, String toClient)
            throws Exception {
        String id = client.replace('/', '-') + "-" + origin; // each case's own path: the origins record every request
        String path = "/" + origin + "/via/" + id;
        assertThat(ask(client, path)).as("Via to the client").isEqualTo(toClient);
        String received = origin.equals("http") ? http.takeRequest().header("Via")
                : h2c.receivedFor("/via/" + id).get(0).fields().get("via");
        assertThat(received).as("Via to the origin").isEqualTo(toOrigin);
    }

    /** Sends {@code GET path} as {@code client} speaks and returns the answer's Via. */
    private static String ask(String client, String path) throws Exception {
        if (client.equals("HTTP/2")) {
            try (RawH2Client c = new RawH2Client(gw.port())) {
                c.get(1, path);
                RawH2Client.Frame head = c.await(f -> f.type() == Frames.HEADERS && f.stream() == 1);
                Map<String, String> fields = c.fields(head);
                assertThat(fields.get(":status")).isEqualTo("200");
                c.body(1);
                return fields.get("via");
            }
        }
        try (RawClient c = gw.raw()) {
            c.send("GET " + path + " " + client + "\r\nHost: via.example\r\n\r\n");
            RawClient.Response r = c.read();
            assertThat(r.status()).isEqualTo(200);
            return r.header("Via");
        }
    }
}
