package io.loomgate.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Every argument of the security filters, the global cors section and default-filters is refused with file:line. */
class SecurityConfigErrorsTest {
    private static final String HASH = "sha256:" + "ab".repeat(32);

    private static String refusal(String yaml) {
        try {
            GatewayAssembly.build(ConfigLoader.parse(yaml, "gateway.yaml", Map.of()));
        } catch (ConfigException e) {
            return e.getMessage();
        }
        throw new AssertionError("accepted:\n" + yaml);
    }

    /** A route whose filters list is this one filter, written on line 5. */
    private static String filter(String yaml) {
        return "routes:\n  - id: api\n    uri: http://127.0.0.1:8082\n    filters:\n      - " + yaml + "\n";
    }

    @Test
    void jwtAuthArguments() {
        assertThat(refusal(filter("{ name: JwtAuth, args: { jwks-uri: 'ftp://idp/jwks' } }"))).isEqualTo(
                "gateway.yaml:5: route 'api': filter 'JwtAuth': jwks-uri: expected an http:// or https:// URL with "
                        + "a host, got 'ftp://idp/jwks'");
        assertThat(refusal(filter("{ name: JwtAuth, args: { jwks-uri: 'http://idp /jwks' } }")))
                .startsWith("gateway.yaml:5: route 'api': filter 'JwtAuth': jwks-uri: not a URL: 'http://idp /jwks'");
        assertThat(refusal(filter("{ name: JwtAuth, args: { jwks-uri: 'https://idp/jwks', algorithms: [RS257] } }")))
                .isEqualTo("gateway.yaml:5: route 'api': filter 'JwtAuth': algorithms: unknown algorithm 'RS257' "
                        + "(known: RS256, RS384, RS512, PS256, PS384, PS512, ES256, ES384, ES512, EdDSA)");
        assertThat(refusal(filter("{ name: JwtAuth, args: { jwks-uri: 'https://idp/jwks', algorithms: [HS256] } }")))
                .contains("algorithms: HS256 needs a shared secret; with a JWKS only public-key algorithms");
        assertThat(refusal(filter("{ name: JwtAuth, args: { secret: 'short' } }")))
                .isEqualTo("gateway.yaml:5: route 'api': filter 'JwtAuth': secret: HMAC needs at least 32 bytes "
                        + "(256 bits), got 5");
        assertThat(refusal(filter("{ name: JwtAuth, args: { secret: '" + "s".repeat(32) + "', algorithms: ES256 } }")))
                .contains("algorithms: ES256 needs a public key");
        assertThat(refusal(filter("{ name: JwtAuth, args: { issuer: x } }")))
                .endsWith("filter 'JwtAuth': needs exactly one of jwks-uri, jwks-file or secret");
        assertThat(refusal(filter("{ name: JwtAuth, args: { jwks-uri: 'https://i/j', jwks-file: f.json } }")))
                .endsWith("needs exactly one of jwks-uri, jwks-file or secret, got 2");
        assertThat(refusal(filter("{ name: JwtAuth, args: { jwks-uri: 'https://i/j', clock-skew: soon } }")))
                .endsWith("clock-skew: expected a duration like 500ms, 2s, 1m or 1h, got 'soon'");
        assertThat(refusal(filter("{ name: JwtAuth, args: { jwks-uri: 'https://i/j', jwks-refresh: 0s } }")))
                .contains("jwks-refresh: expected a duration longer than 0, got '0s'");
        assertThat(refusal(filter("{ name: JwtAuth, args: { jwks-uri: 'https://i/j', jwks-timeout: x } }")))
                .contains("jwks-timeout: expected a duration");
        assertThat(refusal(filter("{ name: JwtAuth, args: { jwks-uri: 'https://i/j', token-cache: -1 } }")))
                .endsWith("token-cache: expected an integer >= 0, got '-1'");
        assertThat(refusal(filter("{ name: JwtAuth, args: { jwks-uri: 'https://i/j', claims-to-headers: "
                + "{ sub: 'X User' } } }"))).endsWith("claims-to-headers: 'X User' is not a valid header name (RFC 9110 token)");
        assertThat(refusal(filter("{ name: JwtAuth, args: { jwks-uri: 'https://i/j', claims-to-headers: "
                + "{ sub: [a, b] } } }"))).isEqualTo("gateway.yaml:5: route 'api': filter 'JwtAuth': "
                + "claims-to-headers: 'sub': a mapping argument takes keys without '=' or ',' and single values "
                + "without ','");
        assertThat(refusal(filter("{ name: JwtAuth, args: { jwks-uri: 'https://i/j', audience: api } }")))
                .contains("unknown argument 'audience' — did you mean 'audiences'?");
    }

    @Test
    void jwksTrustCertificateThatIsMissingOrNotPemOrWithoutAUrl(@TempDir Path dir) throws Exception {
        Path none = dir.resolve("none.pem");
        assertThat(refusal(filter("{ name: JwtAuth, args: { jwks-uri: 'https://i/j', jwks-trust-certificate: '"
                + none + "' } }"))).isEqualTo("gateway.yaml:5: route 'api': filter 'JwtAuth': "
                + "jwks-trust-certificate: " + none + ": no such file");
        Path text = Files.writeString(dir.resolve("text.pem"), "not a certificate\n");
        assertThat(refusal(filter("{ name: JwtAuth, args: { jwks-uri: 'https://i/j', jwks-trust-certificate: '"
                + text + "' } }"))).endsWith("jwks-trust-certificate: " + text
                + ": no '-----BEGIN CERTIFICATE-----' block");
        assertThat(refusal(filter("{ name: JwtAuth, args: { secret: '" + "s".repeat(32)
                + "', jwks-trust-certificate: '" + text + "' } }")))
                .endsWith("filter 'JwtAuth': jwks-trust-certificate: only with jwks-uri (the CAs its https:// server "
                        + "is checked against)");
    }

    @Test
    void jwksFileThatIsMissingOrNotAJwkSet(@TempDir Path dir) throws Exception {
        assertThat(refusal(filter("{ name: JwtAuth, args: { jwks-file: '" + dir.resolve("none.json") + "' } }")))
                .startsWith("gateway.yaml:5: route 'api': filter 'JwtAuth': jwks-file: cannot read ");
        Path bad = Files.writeString(dir.resolve("bad.json"), "{\"keys\": 7}");
        assertThat(refusal(filter("{ name: JwtAuth, args: { jwks-file: '" + bad + "' } }")))
                .contains("filter 'JwtAuth': jwks-file " + bad + ": not a JWK set");
        Path empty = Files.writeString(dir.resolve("empty.json"), "{\"keys\": []}");
        assertThat(refusal(filter("{ name: JwtAuth, args: { jwks-file: '" + empty + "' } }")))
                .contains("the JWK set has no signature key");
    }

    @Test
    void apiKeyAuthArguments(@TempDir Path dir) throws Exception {
        assertThat(refusal(filter("ApiKeyAuth"))).isEqualTo("gateway.yaml:5: route 'api': filter 'ApiKeyAuth': "
                + "needs at least one key (keys: {name: sha256:<hex>} or keys-file)");
        assertThat(refusal(filter("{ name: ApiKeyAuth, args: { keys: { alice: plaintext } } }")))
                .contains("keys: 'alice': expected sha256:<64 hex digits>");
        assertThat(refusal(filter("{ name: ApiKeyAuth, args: { keys: { alice: '" + HASH + "', bob: '" + HASH
                + "' } } }"))).contains("keys 'alice' and 'bob' have the same hash");
        assertThat(refusal(filter("{ name: ApiKeyAuth, args: { header: 'X Key', keys: { a: '" + HASH + "' } } }")))
                .contains("header: 'X Key' is not a valid header name");
        Path file = Files.writeString(dir.resolve("keys.txt"), "# team keys\nalice: " + HASH + "\nbob\n");
        assertThat(refusal(filter("{ name: ApiKeyAuth, args: { keys-file: '" + file + "' } }")))
                .contains("filter 'ApiKeyAuth': keys-file " + file + ":3: expected 'name: sha256:<64 hex digits>'");
        assertThat(refusal(filter("{ name: ApiKeyAuth, args: { keys-file: '" + dir.resolve("x") + "' } }")))
                .contains("keys-file: cannot read");
    }

    @Test
    void corsIpRequestSizeAndSecureHeadersArguments() {
        assertThat(refusal(filter("Cors"))).contains("filter 'Cors': missing argument 'allowed-origins'");
        assertThat(refusal(filter("{ name: Cors, args: { allowed-origins: 'https://a.test/path' } }")))
                .contains("allowed-origins: 'https://a.test/path' is not an origin");
        assertThat(refusal(filter("{ name: Cors, args: { allowed-origins: '*', allow-credentials: true } }")))
                .contains("allow-credentials: true cannot go with allowed-origins '*'");
        assertThat(refusal(filter("{ name: Cors, args: { allowed-origins: '*', max-age: long } }")))
                .contains("max-age: expected a duration");
        assertThat(refusal(filter("IpFilter"))).contains("filter 'IpFilter': needs 'allow' or 'deny'");
        assertThat(refusal(filter("{ name: IpFilter, args: { allow: [ 10.0.0.0/33 ] } }")))
                .isEqualTo("gateway.yaml:5: route 'api': filter 'IpFilter': allow: CIDR prefix must be 0..32 in "
                        + "'10.0.0.0/33'");
        assertThat(refusal(filter("{ name: IpFilter, args: { deny: [ intranet ] } }")))
                .contains("deny: expected an IP address or CIDR range");
        assertThat(refusal(filter("RequestSize=5 MiB"))).isEqualTo("gateway.yaml:5: route 'api': filter "
                + "'RequestSize': maxSize: expected a size like 5MB, 512KB or 1024 (bytes), got '5 MiB'");
        assertThat(refusal(filter("{ name: SecureHeaders, args: { disable: [ x-frame-option ] } }")))
                .contains("disable: 'x-frame-option' is not one of x-xss-protection");
        assertThat(refusal("routes:\n  - id: api\n    uri: http://127.0.0.1:8082\n    predicates: [ "
                + "\"RemoteAddr=10.0.0.0/8,bad\" ]\n")).isEqualTo("gateway.yaml:4: route 'api': predicate "
                + "'RemoteAddr': sources: expected an IP address or CIDR range like 10.0.0.0/8, got 'bad'");
    }

    @Test
    void globalCorsAndDefaultFiltersNameTheirOwnSection() {
        String routes = "routes:\n  - id: api\n    uri: http://127.0.0.1:8082\n";
        assertThat(refusal("cors:\n  allowed-origins: [ 'https://a.test/x' ]\n" + routes)).isEqualTo(
                "gateway.yaml:2: cors: filter 'Cors': allowed-origins: 'https://a.test/x' is not an origin "
                        + "(scheme://host[:port], no path), '*', or a pattern like https://*.example.com");
        assertThat(refusal("cors:\n  allowed-origin: [ '*' ]\n" + routes))
                .isEqualTo("gateway.yaml:2: cors: unknown key 'allowed-origin' — did you mean 'allowed-origins'?");
        assertThat(refusal("default-filters:\n  - RequestSize=lots\n" + routes)).isEqualTo(
                "gateway.yaml:2: default-filters: filter 'RequestSize': maxSize: expected a size like 5MB, 512KB "
                        + "or 1024 (bytes), got 'lots'");
        assertThat(refusal("default-filters:\n  - SecureHeadrs\n" + routes))
                .isEqualTo("gateway.yaml:2: default-filters: unknown filter 'SecureHeadrs' — did you mean "
                        + "'SecureHeaders'?");
    }
}
