package io.loomgate.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** The {@code tracing:} section: off by default, each key read, each refusal with its line. */
class TracingSectionTest {

    @Test
    void absentMeansOffWithTheDefaults() throws ConfigException {
        GatewayConfig c = ConfigLoader.parse("routes: []\n", "gateway.yaml", Map.of());
        assertThat(c.tracing()).isEqualTo(GatewayConfig.TracingSpec.OFF);
        assertThat(c.tracing().enabled()).isFalse();
        assertThat(c.tracing().endpoint()).isEqualTo("http://localhost:4318/v1/traces");
        assertThat(c.tracing().sampler()).isEqualTo(1.0);
        assertThat(c.tracing().serviceName()).isEqualTo("loomgate");
        assertThat(c.tracing().queueSize()).isEqualTo(2048);
    }

    @Test
    void everyKeyIsRead() throws ConfigException {
        GatewayConfig c = ConfigLoader.parse("""
                tracing:
                  enabled: true
                  endpoint: https://collector.example:4318/v1/traces
                  sampler: 0.01
                  service-name: edge
                  queue-size: 100
                """, "gateway.yaml", Map.of());
        assertThat(c.tracing()).isEqualTo(new GatewayConfig.TracingSpec(true,
                "https://collector.example:4318/v1/traces", 0.01, "edge", 100));
    }

    @Test
    void aSamplerOutsideZeroToOneIsRefusedWithItsLine() {
        assertThatThrownBy(() -> ConfigLoader.parse("tracing:\n  enabled: true\n  sampler: 1.5\n", "gateway.yaml",
                Map.of()))
                .hasMessage("gateway.yaml:3: tracing.sampler: expected the ratio of new traces to sample, from 0.0 to "
                        + "1.0 (e.g. 0.01), got '1.5'");
        assertThatThrownBy(() -> ConfigLoader.parse("tracing:\n  sampler: always\n", "gateway.yaml", Map.of()))
                .hasMessageStartingWith("gateway.yaml:2: tracing.sampler: expected the ratio");
    }

    @Test
    void anEndpointThatIsNotAnHttpUrlIsRefused() {
        assertThatThrownBy(() -> ConfigLoader.parse("tracing:\n  endpoint: collector:4317\n", "gateway.yaml",
                Map.of()))
                .hasMessageStartingWith("gateway.yaml:2: tracing.endpoint: expected an http:// or https:// URL");
    }

    @Test
    void anUnknownKeyIsRefused() {
        assertThatThrownBy(() -> ConfigLoader.parse("tracing:\n  ratio: 0.5\n", "gateway.yaml", Map.of()))
                .hasMessageStartingWith("gateway.yaml:2: tracing: unknown key 'ratio' (expected one of: enabled, "
                        + "endpoint, sampler");
    }
}
