package io.loomgate.http2;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.AppenderBase;
import io.loomgate.cli.ServedGateway;
import io.loomgate.observe.AccessLog;
import io.loomgate.server.Transport;
import io.loomgate.testkit.RunningGateway;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.slf4j.LoggerFactory;

/**
 * A POST whose whole body had streamed to an HTTP/2 origin that then refused the stream (a GOAWAY whose last stream
 * is below it, then its close, as an origin's idle close crossing the request; or RST_STREAM REFUSED_STREAM), on a
 * route without a {@code Retry} filter: the origin processed nothing (RFC 9113 §8.7), so the gateway sends the
 * request again on a fresh stream with the body it kept, and the client gets the origin's 200. Until session 56 this
 * was a 502: the body was gone from the client's input and nothing kept it (journal 2026-12-01-s55-h2goaway,
 * interleaving 1). A body larger than the copy's bound (the default initial stream window), refused after it all
 * streamed, is still a 502, with the access log's failure kind {@code upstream_reset}.
 */
class RefusedStreamAfterBodyTest {
    private static final HttpClient CLIENT = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();

    static Stream<Arguments> cases() {
        List<Arguments> out = new ArrayList<>();
        for (Transport t : List.of(Transport.JDK, Transport.EPOLL)) {
            for (ScriptedH2cOrigin.Refusal r : List.of(ScriptedH2cOrigin.Refusal.GOAWAY_BELOW,
                    ScriptedH2cOrigin.Refusal.REFUSED_STREAM)) {
                out.add(Arguments.of(t, r));
            }
        }
        return out.stream();
    }

    private static String yaml(Transport t) {
        return """
                server:
                  address: 127.0.0.1
                  port: 0
                  transport: %s
                admin:
                  port: ${ADMIN_PORT}
                access-log:
                  enabled: true
                  format: json
                routes:
                  - id: main
                    uri: ${ORIGIN}
                    predicates: [ "Path=/**" ]
                """.formatted(t.name().toLowerCase(Locale.ROOT));
    }

    private static void assumeRuns(Transport t) {
        if (t == Transport.EPOLL) {
            Assumptions.assumeTrue(Transport.epollUnavailableReason() == null, "epoll: "
                    + Transport.epollUnavailableReason());
        }
    }

    /** The gateway as {@code serve} runs it: with its access log. */
    private static ServedGateway gateway(Transport t, ScriptedH2cOrigin origin) throws Exception {
        ServedGateway gw = RunningGateway.servedWithAdmin(yaml(t), "refused-after-body.yaml",
                Map.of("ORIGIN", origin.uri()));
        assertThat(gw.gateway().upstreamTransport()).isEqualTo(t);
        return gw;
    }

    private static HttpResponse<String> post(ServedGateway gw, String path, byte[] body) throws Exception {
        return CLIENT.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + gw.port() + path)).timeout(Duration.ofSeconds(20))
                .POST(HttpRequest.BodyPublishers.ofByteArray(body)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private static byte[] body(int size) {
        byte[] b = new byte[size];
        new Random(size).nextBytes(b);
        return b;
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("cases")
    void aRefusedStreamWhoseBodyHadStreamedGoesAgainWithTheWholeBody(Transport t, ScriptedH2cOrigin.Refusal how)
            throws Exception {
        assumeRuns(t);
        byte[] sent = body(3_100); // the fixed body of the POST that s55's sweep lost
        try (ScriptedH2cOrigin origin = new ScriptedH2cOrigin();
             ServedGateway gw = gateway(t, origin)) {
            origin.refusal = how;
            origin.refusals.set(1);
            HttpResponse<String> r = post(gw, "/refused", sent);
            assertThat(r.statusCode()).as("the client's answer").isEqualTo(200);
            assertThat(r.body()).isEqualTo("ok");
            List<ScriptedH2cOrigin.Conn> conns = origin.connections();
            assertThat(conns.getFirst().refused).as("the first stream was refused after its body").hasSize(1);
            List<byte[]> answered = conns.stream().flatMap(c -> c.answeredBodies.stream()).toList();
            assertThat(answered).as("requests the origin answered").hasSize(1);
            assertThat(answered.getFirst()).as("the body the origin got the second time").isEqualTo(sent);
            if (how == ScriptedH2cOrigin.Refusal.GOAWAY_BELOW) {
                assertThat(conns).as("the retry went on a fresh connection").hasSize(2);
                assertThat(conns.get(1).answeredBodies).hasSize(1);
            }
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("cases")
    void aBodyLargerThanTheCopyRefusedAfterItStreamedIsA502(Transport t, ScriptedH2cOrigin.Refusal how)
            throws Exception {
        assumeRuns(t);
        List<String> lines = new CopyOnWriteArrayList<>();
        AppenderBase<ILoggingEvent> capture = new AppenderBase<>() {
            @Override
            protected void append(ILoggingEvent e) {
                lines.add(e.getFormattedMessage());
            }
        };
        capture.start();
        Logger accessLog = (Logger) LoggerFactory.getLogger(AccessLog.LOGGER);
        accessLog.addAppender(capture);
        byte[] sent = body(100 * 1024); // more than the copy's 65,535 bytes: all of it streams (open windows)
        try (ScriptedH2cOrigin origin = new ScriptedH2cOrigin(true);
             ServedGateway gw = gateway(t, origin)) {
            origin.refusal = how;
            origin.refusals.set(1);
            HttpResponse<String> r = post(gw, "/too-big", sent);
            assertThat(r.statusCode()).as("the client's answer").isEqualTo(502);
            assertThat(origin.connections().getFirst().refused).as("the stream was refused after its body")
                    .hasSize(1);
            assertThat(origin.connections().stream().mapToInt(c -> c.answeredBodies.size()).sum())
                    .as("requests the origin answered: no retry").isZero();
            long end = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            while (lines.stream().noneMatch(l -> l.contains("/too-big")) && System.nanoTime() < end) {
                Thread.sleep(10); // the access log's line is written after the answer: polled, with a deadline
            }
            String line = lines.stream().filter(l -> l.contains("/too-big")).findFirst().orElseThrow();
            assertThat(line).as("the access log's line").contains("\"loomgate.failure\":\"upstream_reset\"");
        } finally {
            accessLog.detachAppender(capture);
        }
    }
}
