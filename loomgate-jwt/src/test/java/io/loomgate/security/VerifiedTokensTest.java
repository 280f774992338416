package io.loomgate.security;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The verified-token cache: keyed by hash, good until exp + skew and only for the key set it was checked with. */
class VerifiedTokensTest {
    private final KeySet keys = new KeySet(List.of(), "a");
    private final JwtVerifier.Verified alice = new JwtVerifier.Verified("alice", List.of(), 10_000);

    @Test
    void aTokenIsServedUntilItExpiresAndOnlyForTheSameKeySet() {
        VerifiedTokens cache = new VerifiedTokens(10);
        VerifiedTokens.Hash h = VerifiedTokens.Hash.of("t1");
        cache.put(h, alice, keys, 10_000, 0);
        assertThat(cache.get(VerifiedTokens.Hash.of("t1"), keys, 9_999)).isSameAs(alice);
        assertThat(cache.get(h, new KeySet(List.of(), "b"), 1)).isNull(); // keys rotated: verify again
        cache.put(h, alice, keys, 10_000, 0);
        assertThat(cache.get(h, keys, 10_000)).isNull();
        assertThat(cache.size()).isZero();
        assertThat(cache.get(VerifiedTokens.Hash.of("t2"), keys, 0)).isNull();
    }

    @Test
    void itNeverHoldsMoreThanItsCapacity() {
        VerifiedTokens cache = new VerifiedTokens(100);
        for (int i = 0; i < 1000; i++) {
            cache.put(VerifiedTokens.Hash.of("token-" + i), alice, keys, 10_000, 0);
            assertThat(cache.size()).isLessThanOrEqualTo(100);
        }
        // Expired entries go first: a full cache of expired tokens makes room without dropping live ones.
        VerifiedTokens sweep = new VerifiedTokens(3);
        sweep.put(VerifiedTokens.Hash.of("old-1"), alice, keys, 5, 0);
        sweep.put(VerifiedTokens.Hash.of("old-2"), alice, keys, 5, 0);
        sweep.put(VerifiedTokens.Hash.of("live"), alice, keys, 10_000, 0);
        sweep.put(VerifiedTokens.Hash.of("new"), alice, keys, 10_000, 6);
        assertThat(sweep.get(VerifiedTokens.Hash.of("live"), keys, 7)).isSameAs(alice);
        assertThat(sweep.get(VerifiedTokens.Hash.of("new"), keys, 7)).isSameAs(alice);
    }
}
