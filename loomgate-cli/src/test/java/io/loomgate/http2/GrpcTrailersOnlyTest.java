package io.loomgate.http2;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.grpc.GrpcMessage;
import io.loomgate.grpc.GrpcTimeout;
import io.loomgate.testkit.CountingServer;
import io.loomgate.testkit.RunningGateway;
import io.loomgate.testkit.TestOrigin;
import java.io.InputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The gateway's own gRPC answers, frame by frame: one HEADERS frame with END_STREAM carrying {@code :status 200},
 * {@code content-type: application/grpc}, {@code grpc-status} and a percent-encoded {@code grpc-message}
 * (gRPC's "trailers-only" response). The client here never cancels, so what ends its call is the gateway's own
 * deadline, not the client's.
 */
class GrpcTrailersOnlyTest {
    private static final byte[] EMPTY_MESSAGE = new byte[5]; // gRPC framing: not compressed, length 0

    private static byte[] call(String path, String... extra) {
        String[] fields = new String[4 + extra.length];
        System.arraycopy(new String[] {"content-type", "application/grpc", "te", "trailers"}, 0, fields, 0, 4);
        System.arraycopy(extra, 0, fields, 4, extra.length);
        return RawH2Client.request("POST", path, fields);
    }

    private static Map<String, String> trailersOnly(RawH2Client c, int stream) throws Exception {
        RawH2Client.Frame f = c.await(x -> x.stream() == stream && (x.type() == Frames.HEADERS
                || x.type() == Frames.DATA || x.type() == Frames.RST_STREAM));
        assertThat(f).as("an answer on stream " + stream).isNotNull();
        assertThat(f.type()).as("one HEADERS frame, no DATA, no reset").isEqualTo(Frames.HEADERS);
        assertThat(f.endStream()).as("the HEADERS frame ends the stream").isTrue();
        Map<String, String> fields = c.fields(f);
        assertThat(fields).containsEntry(":status", "200").containsEntry("content-type", "application/grpc")
                .doesNotContainKey("content-length");
        return fields;
    }

    @Test
    void theCallsDeadlineEndsItWithDeadlineExceededAndCancelsTheUpstreamRequest() throws Exception {
        try (CountingServer origin = new CountingServer();
             RunningGateway gw = RunningGateway.start(H2cGatewayYaml.yaml(), Map.of("ORIGIN",
                     "http://127.0.0.1:" + origin.port()));
             RawH2Client c = new RawH2Client(gw.port())) {
            long t0 = System.nanoTime();
            c.headers(1, call("/test.Echo/Unary", "grpc-timeout", "400m"), false);
            c.data(1, EMPTY_MESSAGE, true);
            origin.awaitCount(1);
            Socket upstream = origin.accepted(0);
            upstream.setSoTimeout(15_000);
            // The origin never answers; the gateway's deadline must end the call.
            Map<String, String> answer = trailersOnly(c, 1);
            long elapsedMillis = (System.nanoTime() - t0) / 1_000_000;
            assertThat(answer).containsEntry("grpc-status", "4");
            assertThat(GrpcMessage.decode(answer.get("grpc-message"))).contains("deadline", "400 ms");
            assertThat(elapsedMillis).isBetween(350L, 10_000L);

            // The origin saw the request with what was left of the deadline, then its connection closed (EOF).
            InputStream in = upstream.getInputStream();
            StringBuilder seen = new StringBuilder();
            byte[] buf = new byte[4096];
            int n;
            while ((n = in.read(buf)) > 0) {
                seen.append(new String(buf, 0, n, StandardCharsets.ISO_8859_1));
            }
            assertThat(n).isEqualTo(-1);
            Matcher m = Pattern.compile("(?i)grpc-timeout: (\\S+)\r\n").matcher(seen);
            assertThat(m.find()).as(seen.toString()).isTrue();
            assertThat(GrpcTimeout.parseNanos(m.group(1))).isPositive().isLessThanOrEqualTo(400_000_000L);
        }
    }

    @Test
    void aMalformedGrpcTimeoutIsInternalAndNeverReachesTheOrigin() throws Exception {
        try (TestOrigin origin = new TestOrigin();
             RunningGateway gw = RunningGateway.start(H2cGatewayYaml.yaml(), Map.of("ORIGIN", origin.uri()));
             RawH2Client c = new RawH2Client(gw.port())) {
            c.headers(1, call("/test.Echo/Unary", "grpc-timeout", "1.5S"), true);
            Map<String, String> answer = trailersOnly(c, 1);
            assertThat(answer).containsEntry("grpc-status", "13");
            assertThat(GrpcMessage.decode(answer.get("grpc-message"))).contains("malformed grpc-timeout '1.5S'");
            c.headers(3, call("/test.Echo/Unary", "grpc-timeout", "123456789m"), true); // nine digits
            assertThat(trailersOnly(c, 3)).containsEntry("grpc-status", "13");
            assertThat(origin.requestCount()).isZero();
        }
    }

    @Test
    void theMessageIsPercentEncoded() throws Exception {
        String yaml = H2cGatewayYaml.yaml().replace("Path=/**", "Path=/only/**");
        try (RunningGateway gw = RunningGateway.start(yaml, Map.of("ORIGIN", "http://127.0.0.1:9"));
             RawH2Client c = new RawH2Client(gw.port())) {
            c.headers(1, call("/100%25/Method"), true);
            Map<String, String> answer = trailersOnly(c, 1);
            assertThat(answer).containsEntry("grpc-status", "12");
            assertThat(answer.get("grpc-message")).isEqualTo("no route for POST /100%2525/Method");
            assertThat(answer).containsKey("via");
        }
    }

    @Test
    void aRequestThatIsNotGrpcStillGetsTextAndItsHttpStatus() throws Exception {
        String yaml = H2cGatewayYaml.yaml().replace("Path=/**", "Path=/only/**");
        try (RunningGateway gw = RunningGateway.start(yaml, Map.of("ORIGIN", "http://127.0.0.1:9"));
             RawH2Client c = new RawH2Client(gw.port())) {
            c.headers(1, RawH2Client.request("POST", "/x", "content-type", "application/grpc-web"), true);
            RawH2Client.Frame f = c.await(x -> x.stream() == 1 && x.type() == Frames.HEADERS);
            assertThat(c.fields(f)).containsEntry(":status", "404").doesNotContainKey("grpc-status");
        }
    }
}
