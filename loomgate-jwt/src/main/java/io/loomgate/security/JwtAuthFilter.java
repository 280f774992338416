package io.loomgate.security;

import io.loomgate.extension.ExtensionArgs;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jwt.SignedJWT;
import io.loomgate.filter.BuiltinFilterFactory;
import io.loomgate.filter.FilterChain;
import io.loomgate.filter.FilterExchange;
import io.loomgate.filter.FilterFactory;
import io.loomgate.filter.GatewayFilter;
import io.loomgate.http.Headers;
import io.loomgate.tls.ClientTrust;
import io.loomgate.tls.TlsMaterialException;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Lets a request through only with a valid {@code Authorization: Bearer} JWT, as a resource server does: signature by
 * a key from a JWKS (URL or file) or a shared secret, {@code exp}/{@code nbf} with a clock skew, {@code iss},
 * {@code aud} and scopes. Otherwise it answers itself with RFC 6750's {@code WWW-Authenticate}: 401 for a missing or
 * invalid token, 403 for a missing scope, 400 for a malformed request, 503 when no keys could be fetched.
 *
 * <p>On success the principal claim ({@code sub}) becomes the exchange's principal and the chosen claims go upstream
 * as header fields. Copies of those header fields sent by the client are removed first, always, so an origin can
 * trust them. Verified tokens are cached by hash for their lifetime ({@link VerifiedTokens}).
 */
final class JwtAuthFilter implements GatewayFilter {
    private static final List<String> ARGS = List.of("jwks-uri", "jwks-file", "secret", "algorithms", "issuer",
            "audiences", "required-scopes", "clock-skew", "claims-to-headers", "principal-claim", "jwks-refresh",
            "jwks-timeout", "token-cache", "jwks-trust-certificate");

    /** The factory whose filters take their JWKS URLs' keys from {@code keySets}, kept across reloads. */
    static FilterFactory factory(JwksKeySets keySets) {
        return new BuiltinFilterFactory("JwtAuth", ARGS, a -> create(a, keySets));
    }

    static final List<String> ASYMMETRIC = List.of("RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256",
            "ES384", "ES512", "EdDSA");
    static final List<String> SYMMETRIC = List.of("HS256", "HS384", "HS512");

    private final KeySource keys;
    private final JwtVerifier verifier;
    private final List<String> claimHeaders;
    private final VerifiedTokens cache;

    JwtAuthFilter(KeySource keys, JwtVerifier.Rules rules, int cacheSize) {
        this.keys = keys;
        this.verifier = new JwtVerifier(rules);
        this.claimHeaders = List.copyOf(new LinkedHashSet<>(rules.claimsToHeaders().values()));
        this.cache = cacheSize > 0 ? new VerifiedTokens(cacheSize) : null;
    }

    @Override
    public void filter(FilterExchange exchange, FilterChain chain) throws IOException {
        Headers h = exchange.request().headers();
        for (String name : claimHeaders) {
            h.remove(name); // never the client's word for what only a verified token may say
        }
        JwtVerifier.Verified v;
        try {
            v = authenticate(h);
        } catch (BearerRejection r) {
            if (r.status == 503) {
                SecurityReplies.reply(exchange, 503, r.getMessage(), "Retry-After", "1");
            } else {
                SecurityReplies.reply(exchange, r.status, r.getMessage(), "WWW-Authenticate", r.challenge());
            }
            return;
        }
        exchange.setPrincipal(v.principal());
        for (Map.Entry<String, String> e : v.headers()) {
            h.set(e.getKey(), e.getValue());
        }
        chain.proceed(exchange);
    }

    private JwtVerifier.Verified authenticate(Headers h) throws BearerRejection {
        String token = bearerToken(h);
        long now = System.currentTimeMillis();
        VerifiedTokens.Hash hash = null;
        if (cache != null) {
            hash = VerifiedTokens.Hash.of(token);
            JwtVerifier.Verified hit = cache.get(hash, keys.current(), now);
            if (hit != null) {
                return hit;
            }
        }
        SignedJWT jwt = verifier.parse(token);
        KeySet set;
        try {
            set = keys.keysFor(jwt.getHeader().getKeyID());
        } catch (KeySource.KeysUnavailable e) {
            throw BearerRejection.keysUnavailable("the gateway has no signing keys to check tokens with yet");
        }
        JwtVerifier.Verified v = verifier.verify(jwt, set, now);
        if (cache != null) {
            cache.put(hash, v, set, v.expiresAtMillis(), now);
        }
        return v;
    }

    /** RFC 6750 §2.1: one Authorization field, scheme Bearer (any case), one token68. */
    private static String bearerToken(Headers h) throws BearerRejection {
        int count = h.count("Authorization");
        if (count == 0) {
            throw BearerRejection.missing();
        }
        if (count > 1) {
            throw BearerRejection.badRequest("more than one Authorization field");
        }
        String value = h.first("Authorization").trim();
        if (value.length() < 7 || !value.regionMatches(true, 0, "Bearer ", 0, 7)) {
            throw BearerRejection.missing(); // another scheme (Basic…): no bearer credentials, so no error code
        }
        String token = value.substring(7).trim();
        if (token.isEmpty() || !isToken68(token)) {
            throw BearerRejection.invalid("the token is malformed or unsigned");
        }
        return token;
    }

    private static boolean isToken68(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            boolean ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                    || c == '-' || c == '.' || c == '_' || c == '~' || c == '+' || c == '/' || c == '=';
            if (!ok) {
                return false;
            }
        }
        return true;
    }

    // ---- configuration ----

    /** Where this filter's keys come from (a kept JWKS source is shared with the filters that replace this one). */
    KeySource keys() {
        return keys;
    }

    private static GatewayFilter create(ExtensionArgs a, JwksKeySets keySets) {
        int sources = (a.has("jwks-uri") ? 1 : 0) + (a.has("jwks-file") ? 1 : 0) + (a.has("secret") ? 1 : 0);
        if (sources != 1) {
            throw new IllegalArgumentException("needs exactly one of jwks-uri, jwks-file or secret"
                    + (sources == 0 ? "" : ", got " + sources));
        }
        boolean secret = a.has("secret");
        Set<JWSAlgorithm> algorithms = algorithms(a, secret);
        Duration refresh = a.positiveDuration("jwks-refresh", Duration.ofMinutes(5));
        Duration timeout = a.positiveDuration("jwks-timeout", Duration.ofSeconds(3));
        Map<String, String> claimsToHeaders = a.mapping("claims-to-headers");
        claimsToHeaders.values().forEach(name -> ExtensionArgs.checkHeaderName("claims-to-headers", name));
        JwtVerifier.Rules rules = new JwtVerifier.Rules(algorithms, a.optional("issuer", null),
                a.list("audiences", List.of()), a.list("required-scopes", List.of()),
                a.duration("clock-skew", Duration.ofSeconds(30)), Collections.unmodifiableMap(claimsToHeaders),
                a.optional("principal-claim", "sub"));
        int cacheSize = a.intAtLeast("token-cache", 10_000, 0);
        if (a.has("jwks-trust-certificate") && !a.has("jwks-uri")) {
            throw new IllegalArgumentException("jwks-trust-certificate: only with jwks-uri (the CAs its https:// "
                    + "server is checked against)");
        }
        KeySource keys;
        if (secret) {
            byte[] bytes = a.required("secret").getBytes(StandardCharsets.UTF_8);
            if (bytes.length < 32) {
                throw new IllegalArgumentException("secret: HMAC needs at least 32 bytes (256 bits), got "
                        + bytes.length);
            }
            keys = new KeySource.Fixed(KeySet.secret(bytes, algorithms));
        } else if (a.has("jwks-file")) {
            keys = JwksKeys.fromFile(Path.of(a.required("jwks-file")), algorithms, refresh, keySets.listener());
        } else {
            keys = new JwksSource(jwksUri(a.required("jwks-uri")), algorithms, refresh, timeout,
                    jwksTrust(a, keySets)).keptIn(keySets);
        }
        return new JwtAuthFilter(keys, rules, cacheSize);
    }

    /**
     * The PEM CAs an {@code https://} JWKS is checked against besides the JDK's: {@code jwks-trust-certificate}, read
     * now so that a missing or broken file is a configuration error, else {@code upstream.ssl.trust-certificate}
     * (already read by the configuration), else none.
     */
    private static Path jwksTrust(ExtensionArgs a, JwksKeySets keySets) {
        if (!a.has("jwks-trust-certificate")) {
            return keySets.upstreamTrust();
        }
        Path pem = Path.of(a.required("jwks-trust-certificate"));
        try {
            ClientTrust.socketFactory(pem);
        } catch (TlsMaterialException e) {
            throw new IllegalArgumentException("jwks-trust-certificate: " + e.getMessage());
        }
        return pem;
    }

    private static URI jwksUri(String text) {
        URI uri;
        try {
            uri = new URI(text);
        } catch (java.net.URISyntaxException e) {
            throw new IllegalArgumentException("jwks-uri: not a URL: '" + text + "' (" + e.getReason() + ")");
        }
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(java.util.Locale.ROOT);
        if (!scheme.equals("http") && !scheme.equals("https") || uri.getHost() == null || uri.getHost().isEmpty()) {
            throw new IllegalArgumentException("jwks-uri: expected an http:// or https:// URL with a host, got '"
                    + text + "'");
        }
        return uri;
    }

    private static Set<JWSAlgorithm> algorithms(ExtensionArgs a, boolean secret) {
        List<String> allowed = secret ? SYMMETRIC : ASYMMETRIC;
        List<String> written = a.list("algorithms", secret ? List.of("HS256") : ASYMMETRIC);
        Set<JWSAlgorithm> out = new LinkedHashSet<>();
        for (String name : written) {
            if (!allowed.contains(name)) {
                List<String> other = secret ? ASYMMETRIC : SYMMETRIC;
                if (other.contains(name)) {
                    throw new IllegalArgumentException("algorithms: " + name + (secret
                            ? " needs a public key (jwks-uri or jwks-file); with a secret only HS256, HS384, HS512"
                            : " needs a shared secret; with a JWKS only public-key algorithms are accepted, which is "
                            + "what stops algorithm confusion"));
                }
                throw new IllegalArgumentException("algorithms: unknown algorithm '" + name + "' (known: "
                        + String.join(", ", allowed) + ")");
            }
            out.add(JWSAlgorithm.parse(name));
        }
        return Set.copyOf(out);
    }
}
