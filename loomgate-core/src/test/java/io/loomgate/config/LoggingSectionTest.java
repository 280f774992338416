package io.loomgate.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** The {@code logging:} section: a format and levels per logger, each refusal with its line. */
class LoggingSectionTest {

    @Test
    void formatAndLevelsAreReadInOrder() throws ConfigException {
        GatewayConfig c = ConfigLoader.parse("""
                logging:
                  format: json
                  levels:
                    io.loomgate.proxy: DEBUG
                    root: warn
                """, "gateway.yaml", Map.of());
        assertThat(c.logging().format()).isEqualTo("json");
        assertThat(c.logging().levels()).containsExactly(Map.entry("io.loomgate.proxy", "debug"),
                Map.entry("root", "warn"));
    }

    @Test
    void absentMeansTextAndNoLevels() throws ConfigException {
        GatewayConfig c = ConfigLoader.parse("routes: []\n", "gateway.yaml", Map.of());
        assertThat(c.logging()).isEqualTo(GatewayConfig.LoggingSpec.DEFAULT);
    }

    @Test
    void anUnknownLevelIsNamedWithItsLine() {
        assertThatThrownBy(() -> ConfigLoader.parse("""
                logging:
                  levels:
                    io.loomgate.proxy: loud
                """, "gateway.yaml", Map.of()))
                .hasMessage("gateway.yaml:3: logging.levels.io.loomgate.proxy: expected one of trace, debug, info, "
                        + "warn, error, off, got 'loud'");
    }

    @Test
    void anUnknownFormatIsRefused() {
        assertThatThrownBy(() -> ConfigLoader.parse("logging:\n  format: xml\n", "gateway.yaml", Map.of()))
                .hasMessage("gateway.yaml:2: logging.format: expected text or json, got 'xml'");
    }
}
