package io.loomgate.http2;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.testkit.JarProcess;
import io.loomgate.testkit.TestOrigin;
import io.loomgate.testkit.TestOrigin.Reply;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** SIGTERM to the packaged gateway: an h2c client gets GOAWAY, its stream in flight finishes, the process exits 0. */
class Http2DrainIT {

    @Test
    void sigtermSendsGoAwayAndTheStreamInFlightFinishes(@TempDir Path dir) throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        Path yaml = dir.resolve("gateway.yaml");
        Files.writeString(yaml, H2cGatewayYaml.yaml().replace("  port: 0\n  http2:",
                "  port: 0\n  drain-timeout: 20s\n  http2:"));
        try (TestOrigin origin = new TestOrigin();
             JarProcess gw = JarProcess.start(List.of("-Xmx128m"), List.of("serve", "--config", yaml.toString()),
                     Map.of("ORIGIN", origin.uri()))) {
            int port = gw.awaitListening(Duration.ofSeconds(20));
            try (RawH2Client c = new RawH2Client(port)) {
                origin.enqueue(Reply.raw("HTTP/1.1 200 OK", List.of("Content-Length: 9"), "in", "-flight")
                        .gatedBy(release));
                c.get(1, "/slow");
                origin.takeRequest();
                gw.terminate();
                StringBuilder body = new StringBuilder();
                RawH2Client.Frame goAway = null;
                RawH2Client.Frame f;
                while ((f = c.read()) != null) {
                    if (f.type() == Frames.GOAWAY) {
                        goAway = f;
                        release.countDown(); // the origin finishes only once the client was told to go away
                    } else if (f.is(Frames.DATA, 1)) {
                        body.append(new String(f.payload(), java.nio.charset.StandardCharsets.US_ASCII));
                    }
                }
                assertThat(goAway).as("GOAWAY").isNotNull();
                assertThat(goAway.errorCode()).isEqualTo(Frames.NO_ERROR);
                assertThat(body.toString()).isEqualTo("in-flight");
            }
            assertThat(gw.awaitExit(Duration.ofSeconds(20))).isZero();
        }
    }
}
