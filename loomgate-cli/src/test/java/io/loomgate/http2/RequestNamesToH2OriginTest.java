package io.loomgate.http2;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.testkit.RawClient;
import io.loomgate.testkit.RunningGateway;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The request head an HTTP/2 origin gets, through the real gateway, as its HPACK decoder reads it: every name lower
 * case whatever the client wrote (RFC 9113 §8.2.1), values as the client sent them, the connection-specific fields
 * dropped (§8.2.2) and {@code te} only as {@code trailers}; no other field lost. The names are written without a
 * lower-case string made per name (the encoder lower-cases as it writes: {@code RequestBlockNamesTest} counts that),
 * so this is the check that what it writes is what the old copies sent.
 */
class RequestNamesToH2OriginTest {
    /** The fields no HTTP/2 request may carry (Host is {@code :authority}), in the spellings the client used. */
    private static final List<String> DROPPED = List.of("host", "connection", "keep-alive", "proxy-connection",
            "transfer-encoding", "upgrade", "http2-settings", "x-hop");

    @Test
    void aMixedCaseHttp11ClientsFieldsReachTheOriginLowerCasedAndOnlyTheConnectionSpecificOnesDropped()
            throws Exception {
        try (HostileH2Origin origin = new HostileH2Origin(null);
             RunningGateway gw = RunningGateway.start(H2cGatewayYaml.yaml(), Map.of("ORIGIN", origin.uri()));
             RawClient c = gw.raw()) {
            c.send("GET /x/names/h1 HTTP/1.1\r\n"
                    + "HOST: a.example\r\n"
                    + "User-Agent: Mixed/1.0\r\n"
                    + "ACCEPT: */*\r\n"
                    + "Accept-Language: de-DE\r\n"
                    + "X-Custom-Thing: One\r\n"
                    + "X-API-KEY: MixedCaseValue\r\n"
                    + "x-already-lower: two\r\n"
                    + "Cookie: a=1\r\n"
                    + "Cookie: b=2\r\n"
                    + "X-Repeated: 1\r\n"
                    + "x-REPEATED: 2\r\n"
                    + "Connection: keep-alive, X-Hop\r\n"
                    + "X-Hop: hop-by-hop\r\n"
                    + "Keep-Alive: timeout=5\r\n"
                    + "Proxy-Connection: keep-alive\r\n"
                    + "TE: trailers\r\n"
                    + "HTTP2-Settings: AAMAAABkAAQAoAAAAAIAAAAA\r\n"
                    + "Sec-Fetch-Mode: navigate\r\n"
                    + "\r\n");
            RawClient.Response r = c.read();
            assertThat(r.status()).isEqualTo(200);
            assertThat(r.bodyText()).isEqualTo("/x/names/h1");

            List<String> lines = origin.receivedFor("/names/h1").get(0).lines();
            assertThat(lines).as("names lower case").allSatisfy(l -> {
                String name = l.substring(0, l.indexOf(':', 1));
                assertThat(name).isEqualTo(name.toLowerCase(Locale.ROOT));
            });
            assertThat(lines).containsSubsequence(":method: GET", ":scheme: http", ":authority: a.example",
                    ":path: /x/names/h1");
            assertThat(lines).as("the client's own fields, in order, values as sent").containsSubsequence(
                    "user-agent: Mixed/1.0", "accept: */*", "accept-language: de-DE", "x-custom-thing: One",
                    "x-api-key: MixedCaseValue", "x-already-lower: two", "x-repeated: 1", "x-repeated: 2",
                    "sec-fetch-mode: navigate");
            assertThat(lines.stream().filter(l -> l.startsWith("cookie: ")))
                    .as("cookies, one field each or crumbs of one").isNotEmpty()
                    .allSatisfy(l -> assertThat(l).isIn("cookie: a=1", "cookie: b=2", "cookie: a=1; b=2"));
            assertThat(lines).as("the gateway's forwarding fields").anySatisfy(l -> assertThat(l).startsWith(
                    "x-forwarded-for: ")).anySatisfy(l -> assertThat(l).startsWith("forwarded: "))
                    .anySatisfy(l -> assertThat(l).startsWith("via: "));
            assertThat(lines).filteredOn(l -> DROPPED.contains(l.substring(0, l.indexOf(':', 1)))).isEmpty();
            assertThat(lines).filteredOn(l -> l.startsWith("te:")).containsExactly("te: trailers");
        }
    }

    /** An HTTP/2 client's names are lower case already: they reach the origin as they came. */
    @Test
    void anHttp2ClientsLowerCaseFieldsReachTheOriginAsTheyCame() throws Exception {
        try (HostileH2Origin origin = new HostileH2Origin(null);
             RunningGateway gw = RunningGateway.start(H2cGatewayYaml.yaml(), Map.of("ORIGIN", origin.uri()));
             RawH2Client c = new RawH2Client(gw.port())) {
            c.headers(1, RawH2Client.request("GET", "/x/names/h2", "user-agent", "h2/1.0", "x-custom-thing", "One",
                    "accept", "*/*", "te", "trailers"), true);
            assertThat(c.body(1)).isEqualTo("/x/names/h2");
            List<String> lines = origin.receivedFor("/names/h2").get(0).lines();
            assertThat(lines).containsSubsequence(":method: GET", ":path: /x/names/h2", "user-agent: h2/1.0",
                    "x-custom-thing: One", "accept: */*");
            assertThat(lines).filteredOn(l -> l.startsWith("te:")).containsExactly("te: trailers");
        }
    }
}
