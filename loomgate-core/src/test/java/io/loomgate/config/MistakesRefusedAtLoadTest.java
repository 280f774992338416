package io.loomgate.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Values that YAML and the type checks accept but that would fail only once the gateway runs (an overflowing
 * duration, an address that cannot be bound, two listeners on one port) are refused at load, with file and line.
 */
class MistakesRefusedAtLoadTest {

    private static ConfigException refusal(String yaml) {
        try {
            GatewayAssembly.build(ConfigLoader.parse(yaml, "gateway.yaml", Map.of()));
        } catch (ConfigException e) {
            return e;
        }
        throw new AssertionError("accepted:\n" + yaml);
    }

    private static GatewayConfig accepted(String yaml) throws ConfigException {
        return ConfigLoader.parse(yaml, "gateway.yaml", Map.of());
    }

    @Test
    void aDurationWhoseNanosecondsOverflowIsRefused() throws ConfigException {
        assertThat(refusal("server:\n  idle-timeout: 106752d\n").getMessage()).isEqualTo("gateway.yaml:2: "
                + "server.idle-timeout: duration '106752d' is too large (at most 106751d, about 292 years)");
        assertThat(refusal("routes:\n  - id: a\n    uri: http://a:1\n    timeout: P106752D\n").getMessage())
                .isEqualTo("gateway.yaml:4: route 'a': timeout: duration 'P106752D' is too large (at most "
                        + "106751d, about 292 years)");
        assertThat(refusal("upstream:\n  idle-timeout: 9223372036854775807s\n").getMessage())
                .startsWith("gateway.yaml:2: upstream.idle-timeout: duration '9223372036854775807s' is too large");
        assertThat(accepted("server:\n  idle-timeout: 106751d\n").server().listener().idleTimeout().toDays()).isEqualTo(106751);
    }

    @Test
    void anUnparsableServerAddressIsRefused() {
        assertThat(refusal("server:\n  port: 0\n  address: 300.1.2.3\n").getMessage()).isEqualTo("gateway.yaml:3: "
                + "server.address: expected an IP address or a host name that resolves, got '300.1.2.3'");
        assertThat(refusal("admin:\n  address: 'not an address'\n").getMessage()).isEqualTo("gateway.yaml:2: "
                + "admin.address: expected an IP address or a host name that resolves, got 'not an address'");
    }

    @Test
    void serverAndAdminOnOnePortAreRefused() throws ConfigException {
        assertThat(refusal("server:\n  port: 9000\nadmin:\n  port: 9000\n").getMessage()).isEqualTo("gateway.yaml:4: "
                + "admin.port: 9000 is also server.port (line 2); the gateway and the admin listener need a port each");
        assertThat(refusal("admin:\n  port: 8080\n").getMessage()).isEqualTo("gateway.yaml:2: admin.port: 8080 is "
                + "also server.port (the default); the gateway and the admin listener need a port each");
        // 0 means "any free port" for either, and admin port 0 turns the admin listener off: no clash
        assertThat(accepted("server:\n  port: 0\nadmin:\n  port: 0\n").admin().enabled()).isFalse();
        // the same port on two different specific addresses is two sockets
        assertThat(accepted("server:\n  address: 127.0.0.1\n  port: 9000\nadmin:\n  address: 127.0.0.2\n"
                + "  port: 9000\n").admin().port()).isEqualTo(9000);
    }

    @Test
    void h2cCannotBeAllowedAsAnUpgrade() {
        assertThat(refusal("routes:\n  - id: a\n    uri: http://a:1\n    upgrades: [ websocket, h2c ]\n")
                .getMessage()).isEqualTo("gateway.yaml:4: route 'a': upgrades[1]: h2c cannot be tunnelled: after "
                        + "the switch no route or filter sees its requests (RFC 9113 deprecates it)");
    }

    /**
     * A limiter keyed by the principal before the filter that sets one finds none for any request: every request,
     * with valid credentials too, was refused 403 by deny-empty-key, and nothing said why (session 59's hunt).
     */
    @Test
    void aLimiterKeyedByThePrincipalBeforeAnyAuthenticationIsRefused() throws ConfigException {
        String key = "      - name: ApiKeyAuth\n        args: { keys: { ops: \"sha256:"
                + "2c69bc9111c27110a9b9a7974ba3f8ac0c053c16b23a0738115ee829fbc4d57b\" } }\n";
        String limiter = "      - name: RequestRateLimiter\n        args: { replenish-rate: 1, key-resolver: principal }\n";
        String route = "routes:\n  - id: a\n    uri: http://a:1\n    filters:\n";
        assertThat(refusal(route + limiter + key).getMessage()).isEqualTo("gateway.yaml:5: route 'a': "
                + "RequestRateLimiter: key-resolver: principal, but no filter before it sets a principal (JwtAuth, "
                + "ApiKeyAuth or a plugin's): every request would have no key, refused 403 by deny-empty-key whatever "
                + "its credentials (or never limited with deny-empty-key: false); list it after the authentication "
                + "filter");
        assertThat(refusal(route + "      - SecureHeaders\n" + limiter).getMessage()).startsWith("gateway.yaml:6: ");
        assertThat(refusal("default-filters:\n  - name: RequestRateLimiter\n    args: { replenish-rate: 1, "
                + "keyResolver: principal }\n" + route + key).getMessage())
                .startsWith("gateway.yaml:2: default-filters").contains("no filter before it sets a principal");
        GatewayAssembly.build(accepted(route + key + limiter));
        GatewayAssembly.build(accepted("default-filters:\n" + key.replace("      - ", "  - ").replace("        args",
                "    args") + route + limiter));
        GatewayAssembly.build(accepted(route + limiter.replace("principal", "client-ip") + key));
    }
}
