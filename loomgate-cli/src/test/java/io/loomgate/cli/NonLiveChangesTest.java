package io.loomgate.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.config.ConfigException;
import io.loomgate.config.ConfigLoader;
import io.loomgate.config.GatewayConfig;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Which changes a live reload refuses as "needs a restart", named as the file writes them. */
class NonLiveChangesTest {
    private static final String ROUTES = """
            routes:
              - id: a
                uri: http://127.0.0.1:8081
                predicates: [ "Path=/**" ]
            """;

    private static GatewayConfig parse(String yaml) throws ConfigException {
        return ConfigLoader.parse(yaml, "gateway.yaml", Map.of());
    }

    @Test
    void routesUpstreamSettingsAndLevelsAreLive() throws ConfigException {
        GatewayConfig before = parse("server:\n  port: 8080\n" + ROUTES);
        GatewayConfig after = parse("server:\n  port: 8080\nupstream:\n  max-idle: 3\nlogging:\n  levels:\n"
                + "    io.loomgate: debug\n" + ROUTES.replace("8081", "8082"));
        assertThat(NonLiveChanges.between(before, after)).isEmpty();
        assertThat(NonLiveChanges.sameLiveParts(before, after)).isFalse();
    }

    @Test
    void theListenerThreadModelAdminAndLogFormatNeedARestartEachNamed() throws ConfigException {
        GatewayConfig before = parse("server:\n  port: 8080\n" + ROUTES);
        GatewayConfig after = parse("""
                server:
                  port: 8081
                  threads: platform:50
                  max-connections: 20
                admin:
                  port: 9902
                logging:
                  format: json
                """ + ROUTES);
        assertThat(NonLiveChanges.between(before, after)).containsExactly(
                "server.port (8080 → 8081)",
                "server.threads (virtual → platform:50)",
                "server.max-connections (10000 → 20)",
                "admin.port (9901 → 9902)",
                "logging.format (text → json)");
    }

    @Test
    void theSameFileIsUnchanged() throws ConfigException {
        assertThat(NonLiveChanges.sameLiveParts(parse(ROUTES), parse(ROUTES))).isTrue();
    }
}
