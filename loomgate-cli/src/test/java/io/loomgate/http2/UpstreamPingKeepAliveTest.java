package io.loomgate.http2;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.testkit.RunningGateway;
import java.net.http.HttpResponse;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;

/**
 * The PING keep-alive on upstream HTTP/2 connections, through a real gateway to a scripted h2c origin: a connection
 * whose origin stops answering is closed and replaced, one that answers is kept, and an origin that finds the PINGs
 * too many (GOAWAY ENHANCE_YOUR_CALM too_many_pings) is pinged half as often afterwards.
 */
class UpstreamPingKeepAliveTest {
    private static final long INTERVAL_MS = 300;

    private static String yaml(String timeout) {
        return """
                server:
                  address: 127.0.0.1
                  port: 0
                admin:
                  port: 0
                upstream:
                  http2-keepalive-interval: %dms
                  http2-keepalive-timeout: %s
                routes:
                  - id: main
                    uri: ${ORIGIN}
                    predicates: [ "Path=/**" ]
                """.formatted(INTERVAL_MS, timeout);
    }

    private static void await(String what, BooleanSupplier done) throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!done.getAsBoolean()) {
            assertThat(System.nanoTime() - end).as(what).isNegative();
            Thread.sleep(10); // polling the condition, not waiting for readiness by time
        }
    }

    @Test
    void aConnectionWhoseOriginStopsAnsweringPingsIsReplacedAndTheNextRequestSucceeds() throws Exception {
        try (ScriptedH2cOrigin origin = new ScriptedH2cOrigin();
             RunningGateway gw = RunningGateway.start(yaml("1s"), Map.of("ORIGIN", origin.uri()))) {
            HttpResponse<String> first = gw.get("/first");
            assertThat(first.statusCode()).isEqualTo(200);
            assertThat(first.body()).isEqualTo("ok");
            assertThat(origin.connections()).hasSize(1);
            ScriptedH2cOrigin.Conn dropped = origin.connections().get(0);
            dropped.silent = true; // as if a NAT forgot the connection: nothing comes back any more

            await("the gateway pinged the silent connection and closed it", () -> dropped.endedByPeer);
            assertThat(dropped.pingNanos).isNotEmpty();

            HttpResponse<String> next = gw.get("/next");
            assertThat(next.statusCode()).isEqualTo(200);
            assertThat(next.body()).isEqualTo("ok");
            assertThat(origin.connections()).as("the next request went to a fresh connection").hasSize(2);
            assertThat(origin.connections().get(1).requests).isEqualTo(1);
        }
    }

    @Test
    void aRequestInFlightOnTheDeadConnectionIsRetriedOnAFreshOne() throws Exception {
        try (ScriptedH2cOrigin origin = new ScriptedH2cOrigin();
             RunningGateway gw = RunningGateway.start(yaml("1s"), Map.of("ORIGIN", origin.uri()))) {
            assertThat(gw.get("/first").statusCode()).isEqualTo(200);
            ScriptedH2cOrigin.Conn dropped = origin.connections().get(0);
            dropped.silent = true;

            // The GET lands on the connection that no longer answers; the keep-alive finds it dead, its stream fails
            // as a reset of a reused connection, and the retry policy (an idempotent request without a body) sends
            // it again on a fresh connection, long before the route's timeout.
            HttpResponse<String> inFlight = gw.get("/in-flight");
            assertThat(inFlight.statusCode()).isEqualTo(200);
            assertThat(inFlight.body()).isEqualTo("ok");
            assertThat(dropped.unanswered).isEqualTo(1);
            await("the dead connection was closed", () -> dropped.endedByPeer);
            assertThat(origin.connections()).hasSize(2);
            assertThat(origin.connections().get(1).requests).isEqualTo(1);
        }
    }

    @Test
    void aConnectionWhoseOriginAnswersPingsIsKept() throws Exception {
        try (ScriptedH2cOrigin origin = new ScriptedH2cOrigin();
             RunningGateway gw = RunningGateway.start(yaml("5s"), Map.of("ORIGIN", origin.uri()))) {
            assertThat(gw.get("/first").statusCode()).isEqualTo(200);
            ScriptedH2cOrigin.Conn conn = origin.connections().get(0);

            await("three keep-alive PINGs reached the origin", () -> conn.pingNanos.size() >= 3);
            assertThat(conn.endedByPeer).isFalse();

            assertThat(gw.get("/second").statusCode()).isEqualTo(200);
            assertThat(origin.connections()).as("the answered connection is reused").hasSize(1);
            assertThat(conn.requests).isEqualTo(2);
            // No PING before the connection was silent for the interval (a loaded machine only makes it longer).
            assertThat(conn.quietBeforePingNanos).allSatisfy(quiet -> assertThat(quiet)
                    .isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(INTERVAL_MS)));
        }
    }

    @Test
    void tooManyPingsMakesTheNextConnectionPingHalfAsOften() throws Exception {
        try (ScriptedH2cOrigin origin = new ScriptedH2cOrigin();
             RunningGateway gw = RunningGateway.start(yaml("5s"), Map.of("ORIGIN", origin.uri()))) {
            origin.pingAnswer = ScriptedH2cOrigin.PingAnswer.CALM_DOWN;
            assertThat(gw.get("/first").statusCode()).isEqualTo(200);
            ScriptedH2cOrigin.Conn first = origin.connections().get(0);
            await("the origin told the gateway to calm down, and the connection closed", () -> first.endedByPeer);

            origin.pingAnswer = ScriptedH2cOrigin.PingAnswer.ACK;
            assertThat(gw.get("/second").statusCode()).isEqualTo(200);
            assertThat(origin.connections()).hasSize(2);
            ScriptedH2cOrigin.Conn second = origin.connections().get(1);
            await("the new connection was pinged", () -> !second.pingNanos.isEmpty());
            // Silence before the first PING: at least twice the configured interval (a loaded machine only adds).
            assertThat(second.quietBeforePingNanos.get(0))
                    .isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(2 * INTERVAL_MS));
        }
    }
}
