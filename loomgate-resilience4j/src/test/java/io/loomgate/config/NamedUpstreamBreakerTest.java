package io.loomgate.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.loomgate.route.Route;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A named upstream's {@code circuit-breaker:} (with this module present): one breaker every route on it holds. */
class NamedUpstreamBreakerTest {

    private static GatewayAssembly assemble(String yaml) throws ConfigException {
        return GatewayAssembly.build(ConfigLoader.parse(yaml, "gateway.yaml", Map.of()));
    }

    @Test
    void anUpstreamsCircuitBreakerIsOneBreakerEveryRouteOnItHolds() throws ConfigException {
        GatewayAssembly a = assemble("""
                upstreams:
                  users:
                    uri: http://127.0.0.1:8081
                    circuit-breaker:
                      failure-rate-threshold: 50
                      statusCodes: [ 500, 503 ]
                routes:
                  - id: read
                    uri: lb://users
                    filters: [ "AddRequestHeader=X-Route,read" ]
                  - id: write
                    uri: lb://users
                """);
        List<Route> routes = a.routes().routes();
        Route read = routes.stream().filter(r -> r.id().equals("read")).findFirst().orElseThrow();
        Route write = routes.stream().filter(r -> r.id().equals("write")).findFirst().orElseThrow();
        assertThat(read.filters()).hasSize(1);
        assertThat(read.policies().breaker().toString()).startsWith("CircuitBreaker[users, CLOSED, "
                + "statusCodes=[500, 503]");
        assertThat(write.policies().breaker().toString()).isEqualTo(read.policies().breaker().toString());
        assertThatThrownBy(() -> assemble("""
                upstreams:
                  users:
                    uri: http://127.0.0.1:8081
                    circuit-breaker:
                      failure-rate-treshold: 50
                routes:
                  - id: read
                    uri: lb://users
                """)).hasMessageStartingWith("gateway.yaml:5: upstreams.users.circuit-breaker: filter "
                + "'CircuitBreaker': unknown argument 'failure-rate-treshold'");
    }
}
