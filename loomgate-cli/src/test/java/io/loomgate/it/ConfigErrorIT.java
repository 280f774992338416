package io.loomgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.testkit.JarProcess;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A bad configuration is refused before anything listens: file, line, key and what was expected; exit status 2. */
class ConfigErrorIT {

    @Test
    void aMisspelledFilterIsNamedWithItsLineAndASuggestion(@TempDir Path dir) throws Exception {
        Path yaml = dir.resolve("gateway.yaml");
        Files.writeString(yaml, """
                server:
                  port: 0
                routes:
                  - id: users
                    uri: http://127.0.0.1:8082
                    predicates: [ "Path=/users/**" ]
                    filters: [ "StripPrefx=1" ]
                """);
        try (JarProcess p = JarProcess.start(List.of(), List.of("serve", "--config", yaml.toString()), Map.of())) {
            assertThat(p.awaitExit(Duration.ofSeconds(20))).isEqualTo(2);
            assertThat(p.output()).contains(yaml + ":7:").contains("route 'users'").contains("StripPrefx")
                    .contains("did you mean 'StripPrefix'").doesNotContain("listening on");
        }
    }

    @Test
    void aRedisRateLimitWithoutRedisUrlIsRefusedBeforeListening(@TempDir Path dir) throws Exception {
        Path yaml = dir.resolve("gateway.yaml");
        Files.writeString(yaml, """
                server:
                  port: 0
                redis:
                  url: ${REDIS_URL:}
                routes:
                  - id: api
                    uri: http://127.0.0.1:8082
                    filters:
                      - name: RequestRateLimiter
                        args: { replenish-rate: 10, store: redis }
                """);
        try (JarProcess p = JarProcess.start(List.of(), List.of("serve", "--config", yaml.toString()), Map.of())) {
            assertThat(p.awaitExit(Duration.ofSeconds(20))).isEqualTo(2);
            assertThat(p.output()).contains(yaml + ":10: route 'api': filter 'RequestRateLimiter': store: redis needs")
                    .doesNotContain("listening on");
        }
    }

    @Test
    void aMissingFileIsNamed(@TempDir Path dir) throws Exception {
        Path yaml = dir.resolve("nope.yaml");
        try (JarProcess p = JarProcess.start(List.of(), List.of("serve", "--config", yaml.toString()), Map.of())) {
            assertThat(p.awaitExit(Duration.ofSeconds(20))).isEqualTo(2);
            assertThat(p.output()).contains(yaml.toString());
        }
    }
}
