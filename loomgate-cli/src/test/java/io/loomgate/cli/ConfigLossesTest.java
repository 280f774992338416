package io.loomgate.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.config.ConfigException;
import io.loomgate.config.ConfigLoader;
import io.loomgate.config.GatewayConfig;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** What a reload would drop that the running file has: routes, and protective filters of the routes it keeps. */
class ConfigLossesTest {
    private static final String RUNNING = """
            routes:
              - id: users
                uri: http://127.0.0.1:8081
                predicates: [ "Path=/users/**", "RemoteAddr=10.0.0.0/8" ]
                filters:
                  - name: JwtAuth
                    args: { secret: 'a lab secret of at least 32 bytes!!' }
                  - RequestSize=1MB
                  - AddRequestHeader=X-A, 1
              - id: orders
                uri: http://127.0.0.1:8082
                predicates: [ "Path=/orders/**" ]
            """;

    private static GatewayConfig parse(String yaml) throws ConfigException {
        return ConfigLoader.parse(yaml, "gateway.yaml", Map.of());
    }

    @Test
    void aFileCutInsideTheFirstRouteDropsItsFiltersAndEveryRouteAfterIt() throws ConfigException {
        String cut = RUNNING.substring(0, RUNNING.indexOf("    filters:"));
        assertThat(ConfigLosses.between(parse(RUNNING), parse(cut)))
                .containsExactly("filter JwtAuth of route 'users'", "filter RequestSize of route 'users'",
                        "route 'orders'");
    }

    @Test
    void aDroppedRemoteAddrPredicateIsALossAndOtherFiltersAreNot() throws ConfigException {
        String next = RUNNING.replace(", \"RemoteAddr=10.0.0.0/8\"", "").replace("X-A, 1", "X-B, 2")
                .replace("      - AddRequestHeader=X-B, 2\n", "");
        assertThat(ConfigLosses.between(parse(RUNNING), parse(next)))
                .containsExactly("predicate RemoteAddr of route 'users'");
    }

    @Test
    void addingRoutesAndFiltersOrReorderingThemLosesNothing() throws ConfigException {
        String next = RUNNING.replace("  - RequestSize=1MB\n", "  - RequestSize=2MB\n      - IpFilter=allow:10.0.0.0/8\n")
                + """
                  - id: extra
                    uri: http://127.0.0.1:8083
                    predicates: [ "Path=/extra/**" ]
                """;
        assertThat(ConfigLosses.between(parse(RUNNING), parse(next))).isEmpty();
        assertThat(ConfigLosses.between(parse(RUNNING), parse(RUNNING))).isEmpty();
    }
}
