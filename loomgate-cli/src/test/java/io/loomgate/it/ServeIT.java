package io.loomgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.testkit.JarProcess;
import io.loomgate.testkit.TestOrigin;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The gateway jar, run as users run it, with the minimal YAML file and curl. */
class ServeIT {
    @Test
    void theMinimalConfigServesThroughCurl(@TempDir Path dir) throws Exception {
        // The gateway issue's minimal file, byte for byte (ConfigLoaderTest loads the same resource).
        Path yaml = dir.resolve("gateway.yaml");
        try (var in = ServeIT.class.getResourceAsStream("/gateway-minimal.yaml")) {
            Files.write(yaml, in.readAllBytes());
        }
        try (TestOrigin origin = new TestOrigin();
             JarProcess gw = JarProcess.start(JarProcess.gatewayJar(), List.of("-Xmx128m"),
                     List.of("serve", "--config", yaml.toString(), "--port", "0", "--admin-port", "0"),
                     Map.of("DEFAULT_URI", origin.uri()))) {
            int port = gw.awaitListening(Duration.ofSeconds(20));
            Process curl = new ProcessBuilder("curl", "-s", "-i", "--max-time", "10",
                    "http://127.0.0.1:" + port + "/hello?from=curl").redirectErrorStream(true).start();
            String out = new String(curl.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(curl.waitFor()).isZero();
            assertThat(out).startsWith("HTTP/1.1 200").contains("Via: 1.1 loomgate").endsWith("hello from origin");
            assertThat(origin.takeRequest().target()).isEqualTo("/hello?from=curl");
            assertThat(gw.output()).contains("routes [users, default]");
        }
    }
}
