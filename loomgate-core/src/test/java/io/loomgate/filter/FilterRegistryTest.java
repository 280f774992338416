package io.loomgate.filter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class FilterRegistryTest {

    private record Named(String name) implements FilterFactory {
        @Override
        public List<String> argNames() {
            return List.of();
        }

        @Override
        public GatewayFilter create(Map<String, String> args) {
            return (exchange, chain) -> chain.proceed(exchange);
        }
    }

    @Test
    void holdsTheBuiltInsByExactName() {
        FilterRegistry registry = FilterRegistry.withBuiltIns();
        assertThat(registry.names()).containsExactly("StripPrefix", "PrefixPath", "RewritePath", "SetPath",
                "AddRequestHeader", "SetRequestHeader", "RemoveRequestHeader", "AddResponseHeader",
                "SetResponseHeader", "RemoveResponseHeader", "SetStatus", "RedirectTo", "SetRequestHostHeader",
                "MapRequestHeader", "AddRequestHeadersIfNotPresent", "DedupeResponseHeader",
                "AddRequestParameter", "RemoveRequestParameter", "RewriteResponseHeader", "PreserveHostHeader",
                "RewriteRequestParameter", "RewriteLocationResponseHeader", "LocalResponseCache",
                "CacheRequestBody");
        assertThat(registry.find("StripPrefix")).isNotNull();
        assertThat(registry.find("stripprefix")).isNull();
    }

    @Test
    void takesUserFactoriesButNotTwoOfOneName() {
        FilterRegistry registry = FilterRegistry.withBuiltIns().register(new Named("Audit"));
        assertThat(registry.find("Audit")).isInstanceOf(Named.class);
        assertThatThrownBy(() -> registry.register(new Named("StripPrefix")))
                .hasMessage("a filter named 'StripPrefix' is already registered");
    }
}
