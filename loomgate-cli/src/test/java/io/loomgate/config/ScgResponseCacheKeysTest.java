package io.loomgate.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.loomgate.filter.GatewayFilter;
import io.loomgate.route.Route;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * SCG's {@code spring.cloud.gateway.filter.local-response-cache.*} and {@code global-filter.local-response-cache}
 * keys: the global cache becomes a default filter that a route's own LocalResponseCache replaces; the keys that
 * would only be route defaults are refused with where to write them.
 */
class ScgResponseCacheKeysTest {

    private static final String ROUTES = """
            routes:
            - id: plain
              uri: http://localhost:9000
              predicates: [ Path=/a ]
            - id: own
              uri: http://localhost:9001
              predicates: [ Path=/b ]
              filters: [ "LocalResponseCache=1m,1MB" ]
            """;

    private static List<Route> routes(String yaml) throws Exception {
        return GatewayAssembly.build(ConfigLoader.parse(yaml, "application.yml", Map.of())).routes().routes();
    }

    private static long caches(Route r) {
        return r.filters().stream().map(GatewayFilter::getClass).map(Class::getSimpleName)
                .filter("LocalResponseCacheFilter"::equals).count();
    }

    @Test
    void theGlobalCacheIsOneDefaultFilterThatARoutesOwnReplaces() throws Exception {
        List<Route> routes = routes("""
                spring:
                  cloud:
                    gateway:
                      filter:
                        local-response-cache:
                          enabled: true
                          size: 20MB
                          time-to-live: 2m
                      server:
                        webflux:
                """ + ROUTES.indent(10));
        assertThat(caches(routes.get(0))).isEqualTo(1);
        assertThat(caches(routes.get(1))).isEqualTo(1);
        assertThat(routes.get(0).filters().getFirst()).isNotSameAs(routes.get(1).filters().getFirst());
    }

    @Test
    void withTheGlobalCacheOffOnlyRoutesThatAskHaveOne() throws Exception {
        List<Route> routes = routes("""
                spring:
                  cloud:
                    gateway:
                      global-filter.local-response-cache.enabled: false
                      filter.local-response-cache.enabled: true
                """ + ROUTES.indent(6));
        assertThat(caches(routes.get(0))).isZero();
        assertThat(caches(routes.get(1))).isEqualTo(1);
    }

    @Test
    void routeDefaultsWithoutTheGlobalCacheAndTheUpdateStrategyAreRefusedOnTheirLine() {
        assertThatThrownBy(() -> routes("""
                spring:
                  cloud:
                    gateway:
                      filter.local-response-cache:
                        size: 20MB
                """ + ROUTES.indent(6))).isInstanceOf(ConfigException.class)
                .hasMessageContaining("application.yml:5")
                .hasMessageContaining("LocalResponseCache=timeToLive,size");
        assertThatThrownBy(() -> routes("""
                spring:
                  cloud:
                    gateway:
                      filter.local-response-cache:
                        enabled: true
                        request.no-cache-strategy: update-cache-entry
                """ + ROUTES.indent(6))).isInstanceOf(ConfigException.class)
                .hasMessageContaining("application.yml:6")
                .hasMessageContaining("update-cache-entry is not supported");
    }
}
