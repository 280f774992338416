package io.loomgate.security;

import io.loomgate.filter.FilterFactory;
import io.loomgate.filter.GatewayFilter;
import java.util.Optional;
import java.util.ServiceLoader;

/**
 * The {@code JwtAuth} filter, which lives in the optional module {@value #MODULE} with its JOSE library
 * (nimbus-jose-jwt), so an embedding of loomgate-core carries neither. The module supplies the one implementation,
 * found with {@link ServiceLoader} on Loomgate's class loader; without it, {@link SecurityFilters} has no
 * {@code JwtAuth} and a route naming it is refused with this module's name.
 */
interface JwtAuthSupport {
    /** The Maven module (artifact id) that implements this. */
    String MODULE = "loomgate-jwt";

    /** The factory whose filters take their JWKS URLs' keys from {@code keySets}, kept across reloads. */
    FilterFactory factory(JwksKeySets keySets);

    /** The key source a {@code JwtAuth} filter reads (what {@link JwksKeySets} keeps), or null for another filter. */
    Object keySourceOf(GatewayFilter filter);

    /** The implementation, or empty when {@value #MODULE} is not on the class path. */
    static Optional<JwtAuthSupport> find() {
        return Found.SUPPORT;
    }

    /** Looked up once, on first use. */
    final class Found {
        private Found() {
        }

        static final Optional<JwtAuthSupport> SUPPORT = ServiceLoader.load(JwtAuthSupport.class,
                JwtAuthSupport.class.getClassLoader()).findFirst();
    }
}
