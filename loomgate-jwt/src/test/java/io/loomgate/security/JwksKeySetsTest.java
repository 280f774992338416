package io.loomgate.security;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.filter.FilterFactory;
import io.loomgate.filter.GatewayFilter;
import io.loomgate.testkit.FreePorts;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A gateway's JWKS sources: a filter built again for the same source gets the same keys; another URL, algorithm
 * list, refresh or timeout is another source; sources no served filter uses are forgotten.
 */
class JwksKeySetsTest {

    @Test
    void theSameSourceIsSharedAcrossBuildsAndForgottenWhenNoServedFilterNamesIt() throws Exception {
        int closed = FreePorts.refused(); // nothing listens: the sources' fetches fail, which changes nothing here
        String uri = "http://127.0.0.1:" + closed + "/jwks";
        JwksKeySets sets = new JwksKeySets();
        FilterFactory jwt = JwtAuthFilter.factory(sets);

        JwtAuthFilter first = (JwtAuthFilter) jwt.create(Map.of("jwks-uri", uri));
        JwtAuthFilter again = (JwtAuthFilter) jwt.create(Map.of("jwks-uri", uri));
        assertThat(again.keys()).isSameAs(first.keys());
        JwtAuthFilter otherTimeout = (JwtAuthFilter) jwt.create(Map.of("jwks-uri", uri, "jwks-timeout", "1s"));
        JwtAuthFilter otherAlgorithms = (JwtAuthFilter) jwt.create(Map.of("jwks-uri", uri, "algorithms", "ES256"));
        JwtAuthFilter otherUri = (JwtAuthFilter) jwt.create(Map.of("jwks-uri", uri + "2"));
        assertThat(List.of(otherTimeout.keys(), otherAlgorithms.keys(), otherUri.keys()))
                .doesNotContain(first.keys()).doesNotHaveDuplicates();
        assertThat(sets.size()).isEqualTo(4);

        sets.retain(List.<GatewayFilter>of(again, otherUri));
        assertThat(sets.size()).isEqualTo(2);
        assertThat(((JwtAuthFilter) jwt.create(Map.of("jwks-uri", uri))).keys()).isSameAs(first.keys());
        assertThat(((JwtAuthFilter) jwt.create(Map.of("jwks-uri", uri, "jwks-timeout", "1s"))).keys())
                .isNotSameAs(otherTimeout.keys());
    }

    @Test
    void aSecretIsNotASourceToKeep() {
        JwksKeySets sets = new JwksKeySets();
        JwtAuthFilter.factory(sets).create(Map.of("secret", "a lab secret of at least 32 bytes!!"));
        assertThat(sets.size()).isZero();
    }
}
