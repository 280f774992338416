package io.loomgate.route;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PredicateRegistryTest {

    private record Always(String name) implements PredicateFactory {
        @Override
        public List<String> argNames() {
            return List.of();
        }

        @Override
        public RoutePredicate create(Map<String, String> args) {
            return context -> true;
        }
    }

    @Test
    void holdsTheBuiltInsByExactName() {
        PredicateRegistry registry = PredicateRegistry.withBuiltIns();
        assertThat(registry.names()).containsExactly("Path", "Host", "Method", "Header", "Query", "Weight",
                "RemoteAddr", "XForwardedRemoteAddr", "Cookie", "After", "Before", "Between");
        assertThat(registry.find("Path")).isNotNull();
        assertThat(registry.find("path")).isNull();
    }

    @Test
    void takesUserFactoriesButNotTwoOfOneName() {
        PredicateRegistry registry = PredicateRegistry.withBuiltIns().register(new Always("Always"));
        assertThat(registry.find("Always")).isInstanceOf(Always.class);
        assertThatThrownBy(() -> registry.register(new Always("Path")))
                .hasMessage("a predicate named 'Path' is already registered");
    }
}
