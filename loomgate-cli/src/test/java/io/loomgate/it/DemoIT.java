package io.loomgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.testkit.JarProcess;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The README's first command: the demo starts an origin and the gateway, shows requests going through, exits 0. */
class DemoIT {

    @Test
    void theDemoRunsItsRequestsThroughTheGateway() throws Exception {
        try (JarProcess demo = JarProcess.start(List.of(), List.of("demo", "--port", "0", "--once"), Map.of())) {
            assertThat(demo.awaitExit(Duration.ofSeconds(30))).isZero();
            assertThat(demo.output())
                    .contains("GET /users/42?tab=profile  ->  200")
                    .contains("origin saw: GET /42?tab=profile")
                    .contains("GET /old/7  ->  301")
                    .contains("Location: /users/")
                    .contains("GET /missing  ->  404")
                    .contains("curl -i http://127.0.0.1:")
                    .containsPattern("Dashboard: http://127\\.0\\.0\\.1:\\d+/")
                    .doesNotContain("UNEXPECTED");
        }
    }
}
