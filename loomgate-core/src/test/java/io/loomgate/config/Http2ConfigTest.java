package io.loomgate.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.loomgate.http2.Http2Settings;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@code server.http2}: on by default, off when asked, every key read, every mistake named with its line. */
class Http2ConfigTest {

    private static GatewayConfig parse(String yaml) throws ConfigException {
        return ConfigLoader.parse(yaml, "gateway.yaml", Map.of());
    }

    @Test
    void http2IsOnUnlessDisabled() throws Exception {
        assertThat(parse("server:\n  port: 8080\n").server().listener().http2()).isEqualTo(Http2Settings.enabledDefaults());
        assertThat(parse("routes: []\n").server().listener().http2().enabled()).as("no server section").isTrue();
        assertThat(parse("server:\n  http2:\n    enabled: false\n").server().listener().http2())
                .isEqualTo(Http2Settings.DISABLED);
    }

    @Test
    void everyHttp2KeyIsRead() throws Exception {
        Http2Settings h2 = parse("""
                server:
                  http2:
                    enabled: true
                    max-concurrent-streams: 7
                    initial-window-size: 1000
                    max-streams-per-connection: 9
                    max-resets-per-second: 11
                    max-control-frames-per-second: 13
                """).server().listener().http2();
        assertThat(h2).isEqualTo(new Http2Settings(true, 7, 1000, 9, 11, 13));
    }

    @Test
    void mistakesAreNamedWithTheirLine() {
        assertThatThrownBy(() -> parse("server:\n  http2:\n    enabeld: true\n"))
                .hasMessage("gateway.yaml:3: server.http2: unknown key 'enabeld' — did you mean 'enabled'?");
        assertThatThrownBy(() -> parse("server:\n  http2:\n    max-concurrent-streams: 0\n"))
                .hasMessageStartingWith("gateway.yaml:3: server.http2.max-concurrent-streams:");
    }
}
