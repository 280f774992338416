package io.loomgate.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Each kind of refusal names the file, the line, the key or route, and what was expected. */
class ConfigErrorsTest {

    /** Loads and assembles, as the CLI does, and returns the refusal. */
    private static ConfigException refusal(String yaml) {
        return refusal(yaml, Map.of());
    }

    private static ConfigException refusal(String yaml, Map<String, String> env) {
        try {
            GatewayAssembly.build(ConfigLoader.parse(yaml, "gateway.yaml", env));
        } catch (ConfigException e) {
            return e;
        }
        throw new AssertionError("accepted:\n" + yaml);
    }

    private static String route(String... lines) {
        StringBuilder sb = new StringBuilder("routes:\n  - id: users\n    uri: http://127.0.0.1:8082\n");
        for (String l : lines) {
            sb.append("    ").append(l).append('\n');
        }
        return sb.toString();
    }

    @Test
    void unknownKeySuggestsTheClosest() {
        ConfigException e = refusal("server:\n  port: 8080\n  max-conections: 5\n");
        assertThat(e.getMessage()).isEqualTo("gateway.yaml:3: server: unknown key 'max-conections' — did you mean "
                + "'max-connections'?");
        assertThat(e.file()).isEqualTo("gateway.yaml");
        assertThat(e.line()).isEqualTo(3);
        assertThat(e.key()).isEqualTo("server");
    }

    @Test
    void unknownKeyFarFromAnyListsTheKnownOnes() {
        assertThat(refusal("server:\n  colour: blue\n").getMessage()).isEqualTo("gateway.yaml:2: server: unknown key "
                + "'colour' (expected one of: address, port, threads, platform-threads, max-connections, backlog, "
                + "header-timeout, idle-timeout, read-timeout, drain-timeout, linger-timeout, trusted-proxies, "
                + "max-request-line, max-header-size, max-headers, http2, underscores-in-headers, ssl, "
                + "http-redirect-port, strip-request-headers, transport)");
        assertThat(refusal("rotues: []\n").getMessage())
                .isEqualTo("gateway.yaml:1: unknown key 'rotues' — did you mean 'routes'?");
    }

    @Test
    void unknownFilterSuggestsTheClosest() {
        assertThat(refusal(route("predicates: [ \"Path=/users/**\" ]", "filters: [ StripPrefx=1 ]")).getMessage())
                .isEqualTo("gateway.yaml:5: route 'users': unknown filter 'StripPrefx' — did you mean "
                        + "'StripPrefix'?");
    }

    @Test
    void unknownPredicateSuggestsTheClosestIgnoringCase() {
        assertThat(refusal(route("predicates:", "  - path=/users/**")).getMessage())
                .isEqualTo("gateway.yaml:5: route 'users': unknown predicate 'path' — did you mean 'Path'?");
    }

    @Test
    void wrongTypeSaysWhatWasExpected() {
        assertThat(refusal("server:\n  port: abc\n").getMessage())
                .isEqualTo("gateway.yaml:2: server.port: expected an integer 0..65535, got 'abc'");
        assertThat(refusal("server:\n  port: 70000\n").getMessage())
                .isEqualTo("gateway.yaml:2: server.port: expected an integer 0..65535, got '70000'");
        assertThat(refusal("server: 8080\n").getMessage()).startsWith("gateway.yaml:1: server: expected a mapping of "
                + "address, port,");
        assertThat(refusal(route("preserve-host: maybe")).getMessage())
                .isEqualTo("gateway.yaml:4: route 'users': preserve-host: expected true or false, got 'maybe'");
        assertThat(refusal(route("order: first")).getMessage())
                .isEqualTo("gateway.yaml:4: route 'users': order: expected an integer, got 'first'");
        assertThat(refusal(route("max-in-flight: -1")).getMessage())
                .isEqualTo("gateway.yaml:4: route 'users': max-in-flight: expected an integer >= 0, got '-1'");
        assertThat(refusal("routes:\n  id: users\n").getMessage())
                .isEqualTo("gateway.yaml:2: routes: expected a list, got a mapping");
    }

    @Test
    void aDurationNeedsAUnit() {
        assertThat(refusal(route("timeout: 2")).getMessage()).isEqualTo("gateway.yaml:4: route 'users': timeout: "
                + "a duration needs a unit (us, ms, s, m, h or d), like 2s or 500ms; got '2'");
        assertThat(refusal("server:\n  idle-timeout: soon\n").getMessage()).isEqualTo(
                "gateway.yaml:2: server.idle-timeout: expected a duration like 500ms, 2s, 1m or 1h, got 'soon'");
        assertThat(refusal("server:\n  read-timeout: 0s\n").getMessage()).isEqualTo(
                "gateway.yaml:2: server.read-timeout: expected a duration longer than 0, got '0s'");
        assertThat(refusal("server:\n  port: 0\n  linger-timeout: 0ms\n").getMessage()).isEqualTo(
                "gateway.yaml:3: server.linger-timeout: expected a duration longer than 0, got '0ms'");
        assertThat(refusal("server:\n  linger-timeout: 10\n").getMessage()).isEqualTo(
                "gateway.yaml:2: server.linger-timeout: a duration needs a unit (us, ms, s, m, h or d), like 2s or "
                        + "500ms; got '10'");
    }

    @Test
    void duplicateRouteIdsAreRefused() {
        String yaml = "routes:\n  - id: a\n    uri: http://a:1\n  - id: a\n    uri: http://b:1\n";
        assertThat(refusal(yaml).getMessage())
                .isEqualTo("gateway.yaml:4: route 'a': duplicate route id (first at line 2)");
    }

    @Test
    void aRouteNeedsExactlyOneOfUriAndUris() {
        assertThat(refusal("routes:\n  - id: a\n    order: 1\n").getMessage())
                .isEqualTo("gateway.yaml:2: route 'a': needs 'uri' (one origin) or 'uris' (a list)");
        assertThat(refusal(route("uris: [ \"http://b:1\" ]")).getMessage())
                .isEqualTo("gateway.yaml:4: route 'users': has both 'uri' and 'uris'; write one of them");
        assertThat(refusal("routes:\n  - uri: http://a:1\n").getMessage())
                .isEqualTo("gateway.yaml:2: routes[0]: missing 'id'");
    }

    @Test
    void upstreamUrisMustBeHttpOrHttps() {
        assertThat(refusal("routes:\n  - id: a\n    uri: ftp://a:21\n").getMessage())
                .isEqualTo("gateway.yaml:3: route 'a': uri: expected http://host:port, https://host:port or h2c://host:port, got "
                        + "'ftp://a:21'");
        assertThat(refusal("routes:\n  - id: a\n    uri: http://a:1/api\n").getMessage())
                .isEqualTo("gateway.yaml:3: route 'a': uri: expected http://host:port without a path, query or user "
                        + "info, got 'http://a:1/api'");
        assertThat(refusal("routes:\n  - id: a\n    uris:\n      - http://a:1\n      - http://b:0\n").getMessage())
                .isEqualTo("gateway.yaml:5: route 'a': uris[1]: port must be 1..65535 in 'http://b:0'");
        assertThat(refusal("routes:\n  - id: a\n    uri: lb://users\n").getMessage())
                .isEqualTo("gateway.yaml:3: route 'a': uri: no upstream 'users' under upstreams: (the file declares "
                        + "none; list the service's uris under upstreams.users)");
    }

    @Test
    void badCidrIsRefusedAtItsItem() {
        assertThat(refusal("server:\n  trusted-proxies:\n    - 10.0.0.0/8\n    - 10.0.0.0/33\n").getMessage())
                .isEqualTo("gateway.yaml:4: server.trusted-proxies[1]: CIDR prefix must be 0..32 in '10.0.0.0/33'");
        assertThat(refusal("server:\n  trusted-proxies: [ proxy.local ]\n").getMessage())
                .isEqualTo("gateway.yaml:2: server.trusted-proxies[0]: expected an IP address or CIDR range like "
                        + "10.0.0.0/8, got 'proxy.local'");
    }

    @Test
    void badThreadModelIsRefused() {
        assertThat(refusal("server:\n  threads: green\n").getMessage()).isEqualTo("gateway.yaml:2: server.threads: "
                + "expected a thread model: virtual, cached, platform or platform:N (N >= 1), got 'green'");
        assertThat(refusal("server:\n  threads: platform:50\n  platform-threads: 100\n").getMessage())
                .isEqualTo("gateway.yaml:3: server.platform-threads: is 100 but threads says 'platform:50'; write "
                        + "threads: platform and size it here, or drop platform-threads");
    }

    @Test
    void yamlSyntaxErrorsCarryTheParsersLine() {
        assertThat(refusal("server:\n  port: 8080\n   bad: 1\n").getMessage())
                .isEqualTo("gateway.yaml:3: YAML syntax error: mapping values are not allowed here");
        assertThat(refusal("routes: [ a, b\nserver: {}\n").getMessage()).startsWith("gateway.yaml:2: YAML syntax "
                + "error: expected ',' or ']'");
    }

    @Test
    void duplicateYamlKeysAreRefused() {
        assertThat(refusal("server:\n  port: 1\n  port: 2\n").getMessage())
                .isEqualTo("gateway.yaml:3: server: duplicate key 'port' (first at line 2)");
        assertThat(refusal(route("preserve-host: true", "preserveHost: false")).getMessage())
                .isEqualTo("gateway.yaml:5: route 'users': 'preserveHost' repeats 'preserve-host' (line 4)");
    }

    @Test
    void anEmptyFileIsRefused() {
        for (String empty : new String[] {"", "\n\n", "# nothing but a comment\n"}) {
            ConfigException e = refusal(empty);
            assertThat(e.getMessage()).isEqualTo("gateway.yaml: the file is empty; expected at least a 'routes:' list");
            assertThat(e.line()).isZero();
        }
    }

    @Test
    void aMissingFileIsRefusedWithLineZero(@TempDir Path dir) {
        Path missing = dir.resolve("nope.yaml");
        assertThatThrownBy(() -> ConfigLoader.load(missing))
                .isInstanceOf(ConfigException.class)
                .hasMessage(missing + ": no such file")
                .extracting(e -> ((ConfigException) e).line()).isEqualTo(0);
    }

    @Test
    void anUnsetVariableWithoutDefaultNamesTheVariableAndLine() {
        ConfigException e = refusal("server:\n  port: 8080\nroutes:\n  - id: a\n    uri: ${BACKEND_URI}\n");
        assertThat(e.getMessage()).isEqualTo("gateway.yaml:5: routes[0].uri: environment variable 'BACKEND_URI' is "
                + "not set and has no default (write ${BACKEND_URI:default} to give one)");
    }

    @Test
    void aRewritePathReplacementWrittenAsAPlaceholderGetsAHint() {
        ConfigException e = refusal(route("filters: [ \"RewritePath=/u/(?<seg>.*), /${seg}\" ]"));
        assertThat(e.getMessage()).isEqualTo("gateway.yaml:4: routes[0].filters[0]: environment variable 'seg' is "
                + "not set and has no default (write ${seg:default} to give one; in a RewritePath replacement write "
                + "$\\{seg})");
    }

    @Test
    void badFilterArgumentsNameTheFilterAndItsLine() {
        assertThat(refusal(route("filters:", "  - StripPrefix=1", "  - name: AddRequestHeader",
                "    args: { name: X-Foo, value: \"a\\r\\nb\" }")).getMessage())
                .isEqualTo("gateway.yaml:6: route 'users': filter 'AddRequestHeader': value: header value must not "
                        + "contain CR, LF or NUL");
        assertThat(refusal(route("filters: [ \"StripPrefix=1,2\" ]")).getMessage())
                .isEqualTo("gateway.yaml:4: route 'users': filter 'StripPrefix': takes at most 1 argument(s) "
                        + "(parts), got 2: 1,2; a value containing ',' needs the expanded form (name and args)");
        assertThat(refusal(route("filters: [ { name: SetPath, args: { tmplate: /x } } ]")).getMessage())
                .isEqualTo("gateway.yaml:4: route 'users': filter 'SetPath': unknown argument 'tmplate' — did you "
                        + "mean 'template'?");
        assertThat(refusal(route("predicates: [ \"Path=users\" ]")).getMessage())
                .isEqualTo("gateway.yaml:4: route 'users': predicate 'Path': path pattern must start with '/', got "
                        + "'users'");
    }

    @Test
    void malformedComponentsAreRefused() {
        assertThat(refusal(route("predicates: [ \"/users/**\" ]")).getMessage())
                .isEqualTo("gateway.yaml:4: route 'users': predicates[0]: expected Name=arguments (like "
                        + "Path=/users/**) or a mapping with name and args, got '/users/**'");
        assertThat(refusal(route("filters:", "  - nmae: StripPrefix")).getMessage())
                .isEqualTo("gateway.yaml:5: route 'users' filters[0]: unknown key 'nmae' — did you mean 'name'?");
    }

    @Test
    void anInvalidAccessLogFormatIsRefused() {
        assertThat(refusal("access-log:\n  format: xml\n").getMessage())
                .isEqualTo("gateway.yaml:2: access-log.format: expected combined or json, got 'xml'");
    }

    @Test
    void springCloudGatewayKeysWithoutAnEquivalentAreRefusedOnTheirLine() {
        assertThat(refusal("spring:\n  cloud:\n    gateway:\n      discovery:\n        locator:\n"
                + "          enabled: true\n").getMessage()).isEqualTo("gateway.yaml:6: "
                + "spring.cloud.gateway.discovery.locator.enabled: not supported: Loomgate has no discovery locator: "
                + "write each route, on lb://NAME with the instances under upstreams: (or "
                + "spring.cloud.discovery.client.simple.instances), or a host name that resolves to them "
                + "(dns-refresh)");
    }

    @Test
    void aliasesAndSecondDocumentsAreRefused() {
        assertThat(refusal("server:\n  port: &p 8080\nadmin:\n  port: *p\n").getMessage())
                .isEqualTo("gateway.yaml:4: admin.port: YAML aliases (*p) are not supported; write the value out");
        assertThat(refusal("routes: []\n---\nroutes: []\n").getMessage())
                .isEqualTo("gateway.yaml:3: expected one YAML document, found another ('---')");
    }
}
