package io.loomgate.security;

import io.loomgate.filter.FilterFactory;
import java.util.List;

/**
 * The filters of this package, for the registry configuration builds with: JwtAuth, ApiKeyAuth, Cors, IpFilter,
 * RequestSize, SecureHeaders. A new one is one more line here.
 */
public final class SecurityFilters {
    private SecurityFilters() {
    }

    public static List<FilterFactory> all() {
        return List.of(
                JwtAuthFilter.FACTORY,
                ApiKeyAuthFilter.FACTORY,
                CorsFilter.FACTORY,
                IpFilter.FACTORY,
                RequestSizeFilter.FACTORY,
                SecureHeadersFilter.FACTORY);
    }
}
