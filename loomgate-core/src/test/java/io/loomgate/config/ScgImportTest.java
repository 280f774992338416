package io.loomgate.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@code import-scg}: an SCG file in Loomgate's layout, a comment per dropped key, placeholders kept. */
class ScgImportTest {
    private static final String SCG = """
            server:
              port: 8080
            spring:
              cloud:
                gateway:
                  metrics:
                    enabled: true
                  default-filters:
                    - AddResponseHeader=X-Edge, ${EDGE:yes}
                  routes:
                    - id: users
                      uri: http://127.0.0.1:8082/api
                      predicates:
                        - Path=/users/**
                        - Cookie=chocolate, ch.p
                      filters:
                        - name: Retry
                          args:
                            retries: 3
                            statuses: BAD_GATEWAY
            """;

    @Test
    void writesLoomgatesLayoutWithACommentPerDroppedKey() throws Exception {
        String out = ScgImport.toNative(SCG, "application.yml");
        assertThat(out).startsWith("# Loomgate configuration imported from application.yml (loomgate import-scg)\n"
                + "# dropped application.yml:7: spring.cloud.gateway.metrics.enabled: Loomgate's metrics are always "
                + "on, at /metrics on the admin listener\n"
                + "# dropped application.yml:12: spring.cloud.gateway.routes[0].uri: '/api' dropped: SCG sends the "
                + "request's own path and query, not the route uri's\n");
        assertThat(out).doesNotContain("spring:").contains("${EDGE:yes}")
                .contains("default-filters:").contains("routes:");
        // The output loads as Loomgate's own file, to the same routes the SCG file serves.
        GatewayConfig imported = ConfigLoader.parse(out, "gateway.yaml", Map.of());
        GatewayConfig original = ConfigLoader.parse(SCG.replace("      metrics:\n        enabled: true\n", ""),
                "application.yml", Map.of());
        assertThat(imported.routes()).hasSize(1);
        RouteSpec a = imported.routes().getFirst();
        RouteSpec b = original.routes().getFirst();
        assertThat(a.uris()).isEqualTo(b.uris());
        assertThat(a.predicates()).extracting(RouteSpec.ComponentSpec::name, RouteSpec.ComponentSpec::args)
                .isEqualTo(b.predicates().stream().map(c -> org.assertj.core.groups.Tuple.tuple(c.name(), c.args()))
                        .toList());
        assertThat(a.filters()).extracting(RouteSpec.ComponentSpec::name).containsExactly("AddResponseHeader",
                "Retry");
        GatewayAssembly.build(imported);
    }
}
