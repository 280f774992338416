package io.loomgate.config;

import io.loomgate.security.JwksKeySets;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * A {@code RequestRateLimiter} keyed by {@code principal} reads the name an authentication filter before it in the
 * chain set; listed before one (or on a route without one) it finds no principal for any request, so every request
 * is refused 403 by {@code deny-empty-key} (or, with {@code deny-empty-key: false}, none is ever limited), valid
 * credentials or not, and the client without credentials gets 403 where it should get the 401 and its challenge.
 * Nothing at run time says why (session 59's hunt). Refused at load instead, unless a filter before it is one that
 * sets a principal: {@code JwtAuth}, {@code ApiKeyAuth}, or any filter Loomgate does not register itself (a plugin's
 * may set one; the gateway cannot tell).
 */
final class PrincipalOrder {
    /** Loomgate's own filters that set the exchange's principal. */
    private static final Set<String> AUTHENTICATING = Set.of("JwtAuth", "ApiKeyAuth");
    private static final String LIMITER = "RequestRateLimiter";

    private PrincipalOrder() {
    }

    /**
     * Loomgate's own filter and route-policy names, made once: none of them but {@link #AUTHENTICATING} sets a
     * principal.
     */
    private static final class Own {
        static final Set<String> NAMES = names();

        private static Set<String> names() {
            Set<String> names = new HashSet<>(BuiltIns.filters(new JwksKeySets()).names());
            names.addAll(BuiltIns.policies().names());
            names.add(LIMITER);
            return Set.copyOf(names);
        }
    }

    /**
     * @param filters a route's filters in chain order (default-filters and {@code cors:} first)
     * @throws ConfigException at the limiter's line when no filter before it may set a principal
     */
    static void check(String file, String context, List<RouteSpec.ComponentSpec> filters) throws ConfigException {
        boolean principalBefore = false;
        for (RouteSpec.ComponentSpec c : filters) {
            if (c.name().equals(LIMITER) && !principalBefore && keyedByPrincipal(c)) {
                throw new ConfigException(file, c.line(), c.shared() ? c.context() : context, LIMITER
                        + ": key-resolver: principal, but no filter before it sets a principal (JwtAuth, ApiKeyAuth "
                        + "or a plugin's): every request would have no key, refused 403 by deny-empty-key whatever its "
                        + "credentials (or never limited with deny-empty-key: false); list it after the "
                        + "authentication filter");
            }
            if (AUTHENTICATING.contains(c.name()) || !Own.NAMES.contains(c.name())) {
                principalBefore = true;
            }
        }
    }

    private static boolean keyedByPrincipal(RouteSpec.ComponentSpec c) {
        String resolver = c.args().get("key-resolver");
        if (resolver == null) {
            resolver = c.args().get("keyResolver");
        }
        return resolver != null && resolver.trim().equals("principal");
    }
}
