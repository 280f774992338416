package io.loomgate.config;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.filter.FilterRegistry;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * loomgate-core's tests run without the optional modules (they depend on the core, not the other way round): each
 * part a configuration uses without its module is refused with the module's name, the file, the line and the key.
 * (With the modules present, their own tests and loomgate-cli's check the parts themselves.)
 */
class OptionalModulesTest {
    private static String refusal(String yaml) {
        try {
            GatewayAssembly.build(ConfigLoader.parse(yaml, "gateway.yaml", Map.of()));
        } catch (ConfigException e) {
            return e.getMessage();
        }
        throw new AssertionError("accepted:\n" + yaml);
    }

    @Test
    void jwtAuthWithoutItsModuleNamesTheModule() {
        assertThat(refusal("routes:\n  - id: api\n    uri: http://127.0.0.1:9\n    filters:\n"
                + "      - { name: JwtAuth, args: { jwks-uri: 'https://idp/jwks' } }\n"))
                .isEqualTo("gateway.yaml:5: route 'api': filter 'JwtAuth' needs the module io.loomgate:loomgate-jwt "
                        + "(nimbus-jose-jwt), which is not on the class path: add it beside loomgate-core (the "
                        + "distribution jars carry it)");
    }

    @Test
    void circuitBreakerWithoutItsModuleNamesTheModule() {
        assertThat(refusal("routes:\n  - id: api\n    uri: http://127.0.0.1:9\n"
                + "    filters: [ \"CircuitBreaker=cb\" ]\n"))
                .isEqualTo("gateway.yaml:4: route 'api': filter 'CircuitBreaker' needs the module "
                        + "io.loomgate:loomgate-resilience4j (Resilience4j), which is not on the class path: add it "
                        + "beside loomgate-core (the distribution jars carry it)");
    }

    @Test
    void theRedisStoreWithoutItsModuleNamesTheModuleAndAnUnknownFilterIsStillUnknown() {
        assertThat(refusal("redis:\n  url: redis://127.0.0.1:6379\nroutes:\n  - id: api\n"
                + "    uri: http://127.0.0.1:9\n    filters:\n"
                + "      - { name: RequestRateLimiter, args: { replenish-rate: 10, store: redis } }\n"))
                .isEqualTo("gateway.yaml:7: route 'api': filter 'RequestRateLimiter': store: redis needs the module "
                        + "loomgate-redis (Jedis), which is not on the class path: add io.loomgate:loomgate-redis "
                        + "beside loomgate-core");
        assertThat(refusal("routes:\n  - id: api\n    uri: http://127.0.0.1:9\n    filters: [ \"JwtAuthh=x\" ]\n"))
                .startsWith("gateway.yaml:4: route 'api': unknown filter 'JwtAuthh'");
    }

    @Test
    void conscryptWithoutItsModuleIsRefusedAtItsKey() {
        String refused = null;
        try {
            ConfigLoader.parse("upstream:\n  ssl:\n    provider: conscrypt\n", "gateway.yaml", Map.of());
        } catch (ConfigException e) {
            refused = e.getMessage();
        }
        assertThat(refused).isEqualTo("gateway.yaml:3: upstream.ssl.provider: provider conscrypt needs the "
                + "module loomgate-conscrypt (Conscrypt), which is not on the class path: add "
                + "io.loomgate:loomgate-conscrypt beside loomgate-core, or use provider: jdk");
    }

    @Test
    void theRegistryOfALeanCoreHasEveryOtherBuiltIn() {
        FilterRegistry r = GatewayAssembly.gatewayFilters();
        assertThat(r.names()).contains("ApiKeyAuth", "Cors", "RequestSize", "StripPrefix", "FallbackHeaders")
                .doesNotContain("JwtAuth");
        assertThat(BuiltIns.policies().names()).contains("Retry").doesNotContain("CircuitBreaker");
    }
}
