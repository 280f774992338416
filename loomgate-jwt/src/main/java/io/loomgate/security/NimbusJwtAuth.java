package io.loomgate.security;

import io.loomgate.filter.FilterFactory;
import io.loomgate.filter.GatewayFilter;

/**
 * This module's answer to loomgate-core's {@link JwtAuthSupport} (listed in
 * {@code META-INF/services/io.loomgate.security.JwtAuthSupport}): {@link JwtAuthFilter} on nimbus-jose-jwt. Public
 * only because {@link java.util.ServiceLoader} instantiates it.
 */
public final class NimbusJwtAuth implements JwtAuthSupport {
    @Override
    public FilterFactory factory(JwksKeySets keySets) {
        return JwtAuthFilter.factory(keySets);
    }

    @Override
    public Object keySourceOf(GatewayFilter filter) {
        return filter instanceof JwtAuthFilter jwt ? jwt.keys() : null;
    }
}
