package io.loomgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.testkit.BlackHole;
import io.loomgate.testkit.RawClient;
import io.loomgate.testkit.RunningGateway;
import io.loomgate.testkit.TestOrigin;
import io.loomgate.testkit.TestOrigin.Effect;
import io.loomgate.testkit.TestOrigin.Reply;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Each way an origin can fail gets its own specific answer, and the gateway keeps serving. The build runs it once
 * more on {@code server.transport: epoll} (profile transport-epoll), whose connections to origins are epoll's too.
 */
class UpstreamFailureTest {

    @Test
    void noMatchingRouteIs404() throws Exception {
        String yaml = "routes:\n  - id: api\n    uri: ${ORIGIN}\n    predicates: [ \"Path=/api/**\" ]\n";
        try (TestOrigin origin = new TestOrigin();
             RunningGateway gw = RunningGateway.start(yaml, Map.of("ORIGIN", origin.uri()));
             RawClient c = gw.raw()) {
            RawClient.Response r = c.send("GET /other HTTP/1.1\r\nHost: h\r\n\r\n").read();
            assertThat(r.status()).isEqualTo(404);
            assertThat(r.bodyText()).contains("no route for GET /other");
            // the connection is still good for the next request
            assertThat(c.send("GET /api/x HTTP/1.1\r\nHost: h\r\n\r\n").read().status()).isEqualTo(200);
        }
    }

    @Test
    void aRefusedConnectionIs502NamingTheUpstream() throws Exception {
        int deadPort;
        try (ServerSocket s = new ServerSocket(0)) {
            deadPort = s.getLocalPort();
        }
        String yaml = "routes:\n  - id: dead\n    uri: http://127.0.0.1:" + deadPort + "\n"
                + "    predicates: [ \"Path=/**\" ]\n";
        try (RunningGateway gw = RunningGateway.start(yaml, Map.of()); RawClient c = gw.raw()) {
            RawClient.Response r = c.send("GET / HTTP/1.1\r\nHost: h\r\n\r\n").read();
            assertThat(r.status()).isEqualTo(502);
            // The client learns what went wrong, not where: no upstream address, no route id (issue 38).
            assertThat(r.bodyText()).isEqualTo("502 Bad Gateway: the upstream could not be reached\n")
                    .doesNotContain(Integer.toString(deadPort)).doesNotContain("dead");
        }
    }

    @Test
    void aConnectThatNeverCompletesIs502OnceTheConnectTimeoutPassed() throws Exception {
        try (BlackHole hole = new BlackHole()) {
            String yaml = "upstream:\n  connect-timeout: 1s\nroutes:\n  - id: hole\n    uri: http://127.0.0.1:"
                    + hole.port() + "\n    predicates: [ \"Path=/**\" ]\n";
            try (RunningGateway gw = RunningGateway.start(yaml, Map.of()); RawClient c = gw.raw()) {
                long start = System.nanoTime();
                RawClient.Response r = c.send("GET / HTTP/1.1\r\nHost: h\r\n\r\n").read();
                assertThat(r.status()).isEqualTo(502);
                assertThat(r.bodyText()).isEqualTo("502 Bad Gateway: the upstream could not be reached\n");
                assertThat(System.nanoTime() - start).as("the gateway waited for the connect timeout")
                        .isGreaterThanOrEqualTo(Duration.ofSeconds(1).toNanos());
            }
        }
    }

    @Test
    void noResponseHeadWithinTheRouteTimeoutIs504() throws Exception {
        try (TestOrigin origin = new TestOrigin(); RunningGateway gw = RunningGateway.to(origin, "timeout: 300ms");
             RawClient c = gw.raw()) {
            origin.enqueue(Reply.ok("late").delayed(Duration.ofSeconds(3)));
            RawClient.Response r = c.send("GET /slow HTTP/1.1\r\nHost: h\r\n\r\n").read();
            assertThat(r.status()).isEqualTo(504);
            assertThat(r.bodyText()).isEqualTo("504 Gateway Timeout: the upstream did not answer in time\n");
            assertThat(c.send("GET /fast HTTP/1.1\r\nHost: h\r\n\r\n").read().status()).isEqualTo(200);
        }
    }

    @Test
    void anOriginThatDiesMidBodyAbortsTheClientConnection() throws Exception {
        try (TestOrigin origin = new TestOrigin(); RunningGateway gw = RunningGateway.to(origin);
             RawClient c = gw.raw()) {
            origin.enqueue(Reply.raw("HTTP/1.1 200 OK", List.of("Content-Length: 100"), "only part", "never")
                    .with(Effect.CLOSE_MID_BODY));
            RawClient.Response r = c.send("GET / HTTP/1.1\r\nHost: h\r\n\r\n").read();
            assertThat(r.status()).isEqualTo(200);
            assertThat(r.complete()).isFalse();
            assertThat(r.bodyText()).isEqualTo("only part");
        }
    }

    @Test
    void aChunkedBodyCutShortNeverEndsWithALastChunk() throws Exception {
        try (TestOrigin origin = new TestOrigin(); RunningGateway gw = RunningGateway.to(origin);
             RawClient c = gw.raw()) {
            origin.enqueue(Reply.raw("HTTP/1.1 200 OK", List.of("Transfer-Encoding: chunked"), "4\r\npart\r\n",
                    "0\r\n\r\n").with(Effect.CLOSE_MID_BODY));
            RawClient.Response r = c.send("GET / HTTP/1.1\r\nHost: h\r\n\r\n").read();
            assertThat(r.complete()).isFalse();
        }
    }

    @Test
    void anOriginThatClosesWithoutAnsweringIs502() throws Exception {
        try (TestOrigin origin = new TestOrigin(); RunningGateway gw = RunningGateway.to(origin);
             RawClient c = gw.raw()) {
            origin.enqueue(Reply.ok("x").with(Effect.NO_RESPONSE_CLOSE));
            RawClient.Response r = c.send("POST /once HTTP/1.1\r\nHost: h\r\nContent-Length: 1\r\n\r\nx").read();
            assertThat(r.status()).isEqualTo(502);
            assertThat(r.bodyText()).contains("closed the connection before answering")
                    .doesNotContain(Integer.toString(origin.port()));
        }
    }

    @Test
    void anInvalidResponseHeadIs502() throws Exception {
        try (TestOrigin origin = new TestOrigin(); RunningGateway gw = RunningGateway.to(origin);
             RawClient c = gw.raw()) {
            origin.enqueue(Reply.raw("HTTP/1.1 200 OK", List.of("Content-Length: 2", "Content-Length: 3"), "ok"));
            RawClient.Response r = c.send("GET / HTTP/1.1\r\nHost: h\r\n\r\n").read();
            assertThat(r.status()).isEqualTo(502);
            assertThat(r.bodyText()).isEqualTo("502 Bad Gateway: the upstream sent an invalid response\n");
        }
    }

    @Test
    void anIdempotentRequestOnAStaleReusedConnectionIsRetriedOnceOnAFreshOne() throws Exception {
        try (TestOrigin origin = new TestOrigin(); RunningGateway gw = RunningGateway.to(origin);
             RawClient c = gw.raw()) {
            assertThat(c.send("GET /1 HTTP/1.1\r\nHost: h\r\n\r\n").read().status()).isEqualTo(200);
            // The origin reads the next request on the pooled connection and closes without answering: exactly
            // what a keep-alive connection the origin timed out looks like to the gateway.
            origin.enqueue(Reply.ok("x").with(Effect.NO_RESPONSE_CLOSE));
            RawClient.Response r = c.send("GET /2 HTTP/1.1\r\nHost: h\r\n\r\n").read();
            assertThat(r.status()).isEqualTo(200);
            assertThat(origin.connectionCount()).isEqualTo(2);
            assertThat(origin.received()).extracting(TestOrigin.Recorded::target).containsExactly("/1", "/2", "/2");
        }
    }

    @Test
    void aNonIdempotentRequestIsNotRetried() throws Exception {
        try (TestOrigin origin = new TestOrigin(); RunningGateway gw = RunningGateway.to(origin);
             RawClient c = gw.raw()) {
            assertThat(c.send("GET /1 HTTP/1.1\r\nHost: h\r\n\r\n").read().status()).isEqualTo(200);
            origin.enqueue(Reply.ok("x").with(Effect.NO_RESPONSE_CLOSE));
            RawClient.Response r = c.send("POST /2 HTTP/1.1\r\nHost: h\r\nContent-Length: 0\r\n\r\n").read();
            assertThat(r.status()).isEqualTo(502);
            assertThat(origin.received()).extracting(TestOrigin.Recorded::target).containsExactly("/1", "/2");
        }
    }

    @Test
    void requestsAreSpreadRoundRobinOverTheRoutesUris() throws Exception {
        try (TestOrigin a = new TestOrigin(); TestOrigin b = new TestOrigin()) {
            String yaml = "routes:\n  - id: pair\n    uris: [ \"" + a.uri() + "\", \"" + b.uri() + "\" ]\n"
                    + "    load-balancer: round-robin\n    predicates: [ \"Path=/**\" ]\n";
            try (RunningGateway gw = RunningGateway.start(yaml, Map.of()); RawClient c = gw.raw()) {
                for (int i = 0; i < 6; i++) {
                    assertThat(c.send("GET / HTTP/1.1\r\nHost: h\r\n\r\n").read().status()).isEqualTo(200);
                }
                assertThat(a.requestCount()).isEqualTo(3);
                assertThat(b.requestCount()).isEqualTo(3);
            }
        }
    }
}
