package io.loomgate.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.jwk.Curve;
import com.nimbusds.jose.jwk.JWK;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.gen.ECKeyGenerator;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** A JWKS document holds at most {@link KeySet#MAX_KEYS} keys: more is refused, naming the count. */
class KeySetBoundTest {

    @Test
    void aDocumentWithMoreKeysThanTheBoundIsRefusedAndOneAtTheBoundIsRead() throws Exception {
        JWK one = new ECKeyGenerator(Curve.P_256).keyID("k").generate().toPublicJWK();
        List<JWK> atBound = new ArrayList<>();
        for (int i = 0; i < KeySet.MAX_KEYS; i++) {
            atBound.add(new com.nimbusds.jose.jwk.ECKey.Builder(one.toECKey()).keyID("k" + i).build());
        }
        assertThat(KeySet.parseJwks(new JWKSet(atBound).toString(), Set.of(JWSAlgorithm.ES256)).keys())
                .hasSize(KeySet.MAX_KEYS);
        List<JWK> over = new ArrayList<>(atBound);
        over.add(one);
        assertThatThrownBy(() -> KeySet.parseJwks(new JWKSet(over).toString(), Set.of(JWSAlgorithm.ES256)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining((KeySet.MAX_KEYS + 1) + " keys").hasMessageContaining("at most 100");
    }
}
