package io.loomgate.security;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import java.nio.charset.StandardCharsets;
import java.text.ParseException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Date;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Checks one compact JWS token: its algorithm is one of those accepted, a key of the right type and {@code kid}
 * verifies its signature, and its claims hold ({@code exp} required and not passed, {@code nbf} reached, both with
 * the clock skew; {@code iss}, {@code aud} and scopes as configured). Immutable and thread-safe.
 */
final class JwtVerifier {

    /**
     * What a valid token grants: the principal and the header fields to send upstream.
     *
     * @param expiresAtMillis the token's {@code exp} plus the clock skew
     */
    record Verified(String principal, List<Map.Entry<String, String>> headers, long expiresAtMillis) {
    }

    /**
     * The checks besides the signature.
     *
     * @param issuer          the {@code iss} required, or null
     * @param audiences       one of these must be in {@code aud}; empty for no check
     * @param requiredScopes  all must be granted by {@code scope} (space-separated) or {@code scp}
     * @param clockSkew       tolerance on {@code exp} and {@code nbf}
     * @param claimsToHeaders claim name → header name
     * @param principalClaim  the claim naming the principal (default {@code sub})
     */
    record Rules(Set<JWSAlgorithm> algorithms, String issuer, List<String> audiences, List<String> requiredScopes,
                 Duration clockSkew, Map<String, String> claimsToHeaders, String principalClaim) {
    }

    private final Rules rules;
    private final String scopeText;

    JwtVerifier(Rules rules) {
        this.rules = rules;
        this.scopeText = String.join(" ", rules.requiredScopes());
    }

    /** Parses the token's header only: its algorithm (checked against those accepted) and key id. */
    SignedJWT parse(String token) throws BearerRejection {
        SignedJWT jwt;
        try {
            jwt = SignedJWT.parse(token);
        } catch (ParseException e) {
            // "alg": "none" lands here too: Nimbus refuses an unsecured header as a JWS header.
            throw BearerRejection.invalid("the token is malformed or unsigned");
        }
        JWSAlgorithm alg = jwt.getHeader().getAlgorithm();
        if (!rules.algorithms().contains(alg)) {
            String name = alg.getName().matches("[A-Za-z0-9]{1,16}") ? alg.getName() : "(unreadable)";
            throw BearerRejection.invalid("the token's algorithm " + name + " is not accepted");
        }
        return jwt;
    }

    /** Checks the signature with the keys and then the claims. */
    Verified verify(SignedJWT jwt, KeySet keys, long nowMillis) throws BearerRejection {
        JWSHeader header = jwt.getHeader();
        List<KeySet.Key> candidates = keys.candidates(header.getKeyID(), header.getAlgorithm());
        if (candidates.isEmpty()) {
            throw BearerRejection.invalid(header.getKeyID() == null ? "no key verifies this token's algorithm"
                    : "unknown key id");
        }
        byte[] signingInput = jwt.getSigningInput();
        boolean valid = false;
        for (KeySet.Key k : candidates) {
            try {
                if (k.verifier().verify(header, signingInput, jwt.getSignature())) {
                    valid = true;
                    break;
                }
            } catch (JOSEException e) {
                // a key that cannot check this token (wrong curve, unknown critical header) simply does not verify it
            }
        }
        if (!valid) {
            throw BearerRejection.invalid("the signature is not valid");
        }
        JWTClaimsSet claims;
        try {
            claims = jwt.getJWTClaimsSet();
        } catch (ParseException e) {
            throw BearerRejection.invalid("the token's claims are malformed");
        }
        long expires = checkTime(claims, nowMillis);
        checkIssuerAndAudience(claims);
        checkScopes(claims);
        return new Verified(principal(claims), headers(claims), expires);
    }

    private long checkTime(JWTClaimsSet claims, long nowMillis) throws BearerRejection {
        long skew = rules.clockSkew().toMillis();
        Date exp = claims.getExpirationTime();
        if (exp == null) {
            throw BearerRejection.invalid("the token has no expiry (exp)");
        }
        if (nowMillis >= exp.getTime() + skew) {
            throw BearerRejection.invalid("the token expired");
        }
        Date nbf = claims.getNotBeforeTime();
        if (nbf != null && nowMillis + skew < nbf.getTime()) {
            throw BearerRejection.invalid("the token is not valid yet (nbf)");
        }
        return exp.getTime() + skew;
    }

    private void checkIssuerAndAudience(JWTClaimsSet claims) throws BearerRejection {
        if (rules.issuer() != null && !rules.issuer().equals(claims.getIssuer())) {
            throw BearerRejection.invalid("the token's issuer is not accepted");
        }
        if (!rules.audiences().isEmpty()) {
            List<String> aud = claims.getAudience();
            if (aud == null || aud.stream().noneMatch(rules.audiences()::contains)) {
                throw BearerRejection.invalid("the token's audience is not accepted");
            }
        }
    }

    private void checkScopes(JWTClaimsSet claims) throws BearerRejection {
        if (rules.requiredScopes().isEmpty()) {
            return;
        }
        List<String> granted = new ArrayList<>();
        for (String name : List.of("scope", "scp")) {
            Object v = claims.getClaim(name);
            if (v instanceof String s) {
                granted.addAll(List.of(s.trim().split("\\s+")));
            } else if (v instanceof Collection<?> c) {
                c.forEach(o -> granted.add(String.valueOf(o)));
            }
        }
        if (!granted.containsAll(rules.requiredScopes())) {
            throw BearerRejection.insufficientScope(scopeText);
        }
    }

    private String principal(JWTClaimsSet claims) throws BearerRejection {
        Object v = claims.getClaim(rules.principalClaim());
        return v == null ? null : text(rules.principalClaim(), v);
    }

    private List<Map.Entry<String, String>> headers(JWTClaimsSet claims) throws BearerRejection {
        if (rules.claimsToHeaders().isEmpty()) {
            return List.of();
        }
        List<Map.Entry<String, String>> out = new ArrayList<>(rules.claimsToHeaders().size());
        for (Map.Entry<String, String> e : rules.claimsToHeaders().entrySet()) {
            Object v = claims.getClaim(e.getKey());
            if (v != null) {
                out.add(Map.entry(e.getValue(), ClaimHeaderValue.of(e.getKey(), v)));
            }
        }
        return List.copyOf(out);
    }

    /**
     * The principal claim as text: strings as they are, numbers and booleans printed, lists comma-joined, non-ASCII
     * as its UTF-8 bytes one per char (as the access log and rate-limit keys have always had it). (Claims
     * sent upstream as header fields take {@link ClaimHeaderValue}'s forms instead.) A value with control characters
     * is refused rather than dropped.
     */
    private static String text(String claim, Object v) throws BearerRejection {
        String s;
        if (v instanceof Collection<?> c) {
            List<String> parts = new ArrayList<>(c.size());
            c.forEach(o -> parts.add(String.valueOf(o)));
            s = String.join(",", parts);
        } else if (v instanceof Date d) {
            s = Long.toString(d.getTime() / 1000);
        } else {
            s = String.valueOf(v);
        }
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if ((c < 0x20 && c != '\t') || c == 0x7f) {
                throw BearerRejection.invalid("the claim '" + claim + "' holds control characters");
            }
        }
        return new String(s.getBytes(StandardCharsets.UTF_8), StandardCharsets.ISO_8859_1);
    }
}
