package io.loomgate.route;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** Host patterns over '.'-separated labels; the port is ignored and case does not matter. */
class HostPredicateTest {

    private static RoutePredicate host(String patterns) {
        return HostPredicate.FACTORY.create(Map.of("patterns", patterns));
    }

    private static boolean matches(RoutePredicate p, String hostHeader) {
        return p.test(Requests.context(Requests.get("/", "Host", hostHeader)));
    }

    @Test
    void doubleStarMatchesAnySubdomains() {
        RoutePredicate p = host("**.example.com");
        assertThat(matches(p, "api.example.com")).isTrue();
        assertThat(matches(p, "a.b.example.com")).isTrue();
        assertThat(matches(p, "example.org")).isFalse();
        assertThat(matches(p, "api.example.com.evil.net")).isFalse();
    }

    @Test
    void singleStarMatchesOneLabel() {
        RoutePredicate p = host("*.example.com");
        assertThat(matches(p, "api.example.com")).isTrue();
        assertThat(matches(p, "a.b.example.com")).isFalse();
        assertThat(matches(p, "example.com")).isFalse();
    }

    @Test
    void variablesBindALabel() {
        Requests.Context c = Requests.context(Requests.get("/", "Host", "Blue.Example.com:8080"));
        assertThat(host("{sub}.example.com").test(c)).isTrue();
        assertThat(c.variables()).containsExactly(Map.entry("sub", "blue"));
    }

    @Test
    void portAndCaseAndTrailingDotAreIgnored() {
        RoutePredicate p = host("api.example.com");
        assertThat(matches(p, "API.Example.COM:8443")).isTrue();
        assertThat(matches(p, "api.example.com.")).isTrue();
        assertThat(matches(host("[::1]"), "[::1]:8080")).isTrue();
    }

    @Test
    void aRequestWithoutHostNeverMatches() {
        assertThat(host("**").test(Requests.context(Requests.get("/")))).isFalse();
    }

    @Test
    void patternsWithPortsOrPathsAreRefused() {
        assertThatThrownBy(() -> host("example.com:8080")).hasMessageStartingWith("expected a host pattern");
        assertThatThrownBy(() -> host("example.com/x")).hasMessageStartingWith("expected a host pattern");
    }
}
