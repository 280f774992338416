package io.loomgate.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A route (or a named upstream) whose origin is the gateway's own listener is warned of at load with its file and
 * line; one on another port, another loopback address than a specific listener's, or the admin port is not.
 */
class SelfRoutesTest {
    private static List<String> warnings(String server, String... routeLines) throws ConfigException {
        StringBuilder yaml = new StringBuilder(server).append("routes:\n");
        for (String r : routeLines) {
            yaml.append(r).append('\n');
        }
        return SelfRoutes.warnings(ConfigLoader.parse(yaml.toString(), "gateway.yaml", Map.of()));
    }

    @Test
    void aRouteToTheListenersPortOnLoopbackIsWarnedOfWithItsLine() throws ConfigException {
        List<String> w = warnings("server: { port: 8080 }\n",
                "  - id: other", "    uri: http://127.0.0.1:9000", "    predicates: [ \"Path=/o/**\" ]",
                "  - id: self", "    uri: http://localhost:8080", "    predicates: [ \"Path=/**\" ]");
        assertThat(w).hasSize(1);
        assertThat(w.get(0)).startsWith("gateway.yaml:6: route 'self': uri http://localhost:8080")
                .contains("508 Loop Detected");
    }

    @Test
    void aNamedUpstreamWithTheListenerAmongItsMembersIsWarnedOf() throws ConfigException {
        List<String> w = warnings("server: { port: 8080 }\nupstreams:\n  svc:\n    uris: [ \"http://10.0.0.7:8080\", "
                + "\"h2c://[::1]:8080\" ]\n", "  - id: r", "    uri: lb://svc", "    predicates: [ \"Path=/**\" ]");
        assertThat(w).singleElement().asString().contains("upstreams.svc").contains("[::1]:8080");
    }

    @Test
    void aListenerOnOneAddressIsReachedOnlyThroughIt() {
        assertThat(SelfRoutes.reaches("127.0.0.1", "127.0.0.1")).isTrue();
        assertThat(SelfRoutes.reaches("127.0.0.1", "localhost")).isTrue();
        assertThat(SelfRoutes.reaches("127.0.0.1", "127.0.0.2")).isFalse();
        assertThat(SelfRoutes.reaches("10.0.0.5", "127.0.0.1")).isFalse();
        assertThat(SelfRoutes.reaches("0.0.0.0", "127.9.9.9")).isTrue();
        assertThat(SelfRoutes.reaches("0.0.0.0", "orders.internal")).isFalse();
    }

    @Test
    void theAdminPortAndOtherPortsAreNotTheListener() throws ConfigException {
        assertThat(warnings("server: { port: 8080 }\nadmin: { port: 9977 }\n",
                "  - id: metrics", "    uri: http://127.0.0.1:9977", "    predicates: [ \"Path=/m/**\" ]",
                "  - id: o", "    uri: http://127.0.0.1:8081", "    predicates: [ \"Path=/**\" ]")).isEmpty();
    }
}
