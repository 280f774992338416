package io.loomgate.security;

import io.loomgate.filter.FilterFactory;
import java.util.ArrayList;
import java.util.List;

/**
 * The filters of this package, for the registry configuration builds with: JwtAuth, ApiKeyAuth, Cors, IpFilter,
 * RequestSize, SecureHeaders. A new one is one more line here. JwtAuth is there when its module, loomgate-jwt, is on
 * the class path ({@link JwtAuthSupport}).
 */
public final class SecurityFilters {
    private SecurityFilters() {
    }

    /** With JWKS key sources of their own: for a configuration built once (a check), not reloaded. */
    public static List<FilterFactory> all() {
        return all(new JwksKeySets());
    }

    /** With the JWKS key sources of a gateway, kept across its reloads. */
    public static List<FilterFactory> all(JwksKeySets keySets) {
        List<FilterFactory> all = new ArrayList<>();
        JwtAuthSupport.find().ifPresent(jwt -> all.add(jwt.factory(keySets)));
        all.addAll(List.of(
                ApiKeyAuthFilter.FACTORY,
                CorsFilter.FACTORY,
                IpFilter.FACTORY,
                RequestSizeFilter.FACTORY,
                RequestHeaderSizeFilter.FACTORY,
                SecureHeadersFilter.FACTORY));
        return List.copyOf(all);
    }
}
