package io.loomgate.config;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.http2.OriginFloodLimits;
import io.loomgate.upstream.Endpoint;
import io.loomgate.upstream.Http2KeepAlive;
import io.loomgate.upstream.UpstreamDefinition;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@code h2c://} uris and the {@code upstream.http2*} keys: what they build, and bad values named by file:line:key. */
class Http2UpstreamConfigTest {

    private static GatewayAssembly load(String yaml) throws ConfigException {
        return GatewayAssembly.build(ConfigLoader.parse(yaml, "gateway.yaml", Map.of()));
    }

    private static ConfigException refusal(String yaml) {
        try {
            load(yaml);
        } catch (ConfigException e) {
            return e;
        }
        throw new AssertionError("accepted:\n" + yaml);
    }

    @Test
    void h2cUriMakesAnHttp2EndpointAndWeightsStillWork() throws Exception {
        GatewayAssembly a = load("""
                routes:
                  - id: grpc
                    uris:
                      - h2c://10.0.0.1:50051;weight=3
                      - uri: h2c://10.0.0.2:50051
                    predicates: [ "Path=/**" ]
                """);
        UpstreamDefinition d = a.upstreams().get(0);
        assertThat(d.endpoints()).containsExactly(new Endpoint("10.0.0.1", 50051, false, true),
                new Endpoint("10.0.0.2", 50051, false, true));
        assertThat(d.balancing().weights()).containsExactly(3, 1);
        assertThat(d.endpoints().get(0).toString()).isEqualTo("h2c://10.0.0.1:50051");
    }

    @Test
    void upstreamHttp2OffersH2ToHttpsOriginsOnly() throws Exception {
        GatewayAssembly a = load("""
                upstream:
                  http2: true
                  http2-max-connections: 3
                routes:
                  - id: tls
                    uri: https://origin.example
                  - id: plain
                    uri: http://origin.example:8080
                """);
        assertThat(a.upstreams().get(0).endpoints().get(0).http2()).isTrue();
        assertThat(a.upstreams().get(1).endpoints().get(0).http2()).isFalse();
        assertThat(a.upstreams().get(0).settings().http2MaxConnections()).isEqualTo(3);
    }

    @Test
    void withoutTheKeyHttpsStaysHttp11() throws Exception {
        GatewayAssembly a = load("routes:\n  - id: tls\n    uri: https://origin.example\n");
        assertThat(a.upstreams().get(0).endpoints().get(0).http2()).isFalse();
    }

    @Test
    void keepAliveDefaultsConfiguredValuesAndOff() throws Exception {
        String route = "routes:\n  - id: grpc\n    uri: h2c://10.0.0.1:50051\n";
        assertThat(load(route).upstreams().get(0).settings().http2KeepAlive()).isEqualTo(Http2KeepAlive.DEFAULTS);
        assertThat(Http2KeepAlive.DEFAULTS.interval()).isEqualTo(Duration.ofSeconds(30));
        assertThat(Http2KeepAlive.DEFAULTS.timeout()).isEqualTo(Duration.ofSeconds(20));
        Http2KeepAlive set = load("upstream:\n  http2-keepalive-interval: 45s\n  http2-keepalive-timeout: 5s\n"
                + route).upstreams().get(0).settings().http2KeepAlive();
        assertThat(set).isEqualTo(new Http2KeepAlive(Duration.ofSeconds(45), Duration.ofSeconds(5)));
        Http2KeepAlive off = load("upstream:\n  http2-keepalive-interval: 0s\n" + route).upstreams().get(0)
                .settings().http2KeepAlive();
        assertThat(off.enabled()).isFalse();
    }

    @Test
    void originFloodBoundsDefaultsTheUpstreamSectionAndANamedUpstreamsPool() throws Exception {
        String route = "routes:\n  - id: grpc\n    uri: h2c://10.0.0.1:50051\n";
        assertThat(load(route).upstreams().get(0).settings().http2Floods()).isEqualTo(OriginFloodLimits.DEFAULTS)
                .isEqualTo(new OriginFloodLimits(1000, 100, 10));
        GatewayAssembly a = load("""
                upstream:
                  http2-max-control-frames-burst: 200
                  http2-max-control-frames-per-second: 20
                upstreams:
                  strict:
                    uri: h2c://10.0.0.2:50051
                    pool: { http2-max-control-frames-burst: 30, http2-max-window-updates-per-data-frame: 4 }
                routes:
                  - id: grpc
                    uri: h2c://10.0.0.1:50051
                  - id: strict
                    uri: lb://strict
                """);
        assertThat(a.upstreams()).extracting(d -> d.settings().http2Floods()).contains(
                new OriginFloodLimits(200, 20, 10), // the upstream: section over the defaults
                new OriginFloodLimits(30, 20, 4)); // a named upstream's pool: over the upstream: section
    }

    @Test
    void badValuesAreNamedWithFileLineAndKey() {
        assertThat(refusal("upstream:\n  http2-keepalive-timeout: 0s\n").getMessage())
                .startsWith("gateway.yaml:2: upstream.http2-keepalive-timeout: expected a duration longer than 0");
        assertThat(refusal("upstream:\n  http2-keepalive-interval: often\n").getMessage())
                .startsWith("gateway.yaml:2: upstream.http2-keepalive-interval:");
        assertThat(refusal("upstream:\n  http2: maybe\n").getMessage())
                .startsWith("gateway.yaml:2: upstream.http2: expected true or false");
        assertThat(refusal("upstream:\n  http2-max-connections: 0\n").getMessage())
                .startsWith("gateway.yaml:2: upstream.http2-max-connections: expected an integer 1..1024");
        assertThat(refusal("upstream:\n  http2-max-control-frames-burst: 0\n").getMessage())
                .startsWith("gateway.yaml:2: upstream.http2-max-control-frames-burst: expected an integer >= 1, got '0'");
        assertThat(refusal("upstream:\n  http2-max-control-frames-per-second: lots\n").getMessage())
                .startsWith("gateway.yaml:2: upstream.http2-max-control-frames-per-second:");
        assertThat(refusal("upstream:\n  http2-max-window-updates-per-data-frame: 0\n").getMessage())
                .startsWith("gateway.yaml:2: upstream.http2-max-window-updates-per-data-frame: expected an integer"
                        + " 1..1000000");
        assertThat(refusal("upstreams:\n  u:\n    uri: h2c://h:1\n    pool:\n"
                + "      http2-max-control-frames-per-second: -5\n").getMessage())
                .startsWith("gateway.yaml:5:").contains("http2-max-control-frames-per-second");
        assertThat(refusal("upstream:\n  http2-max-conections: 2\n").getMessage())
                .contains("gateway.yaml:2", "did you mean 'http2-max-connections'");
        assertThat(refusal("routes:\n  - id: r\n    uri: h2c://host:99999\n").getMessage())
                .startsWith("gateway.yaml:3:").contains("port must be 1..65535 in 'h2c://host:99999'");
        assertThat(refusal("routes:\n  - id: r\n    uri: h2://host:80\n").getMessage())
                .startsWith("gateway.yaml:3:").contains("h2c://host:port");
    }
}
