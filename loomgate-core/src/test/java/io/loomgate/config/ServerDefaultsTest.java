package io.loomgate.config;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.http2.Http2Settings;
import io.loomgate.server.ListenerSettings;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The defaults of the {@code server:} section are written once ({@link GatewayConfig.ServerSpec#DEFAULTS}, composed
 * of {@link ListenerSettings#DEFAULTS}), and everything that states them agrees: no {@code server:} section, an empty
 * one, and the reference's table. The drift this pins: the spec's javadoc said backlog 4096 where the code said
 * 10,000, and {@code ServerSpec.DEFAULTS} had HTTP/2 off while an empty {@code server:} turned it on.
 */
class ServerDefaultsTest {

    private static GatewayConfig parse(String yaml) throws ConfigException {
        return ConfigLoader.parse(yaml, "gateway.yaml", Map.of());
    }

    @Test
    void noSectionAnEmptyOneAndTheDefaultsAreTheSameSettings() throws ConfigException {
        GatewayConfig.ServerSpec none = parse("routes: []\n").server();
        GatewayConfig.ServerSpec empty = parse("server:\nroutes: []\n").server();
        GatewayConfig.ServerSpec emptyMapping = parse("server: {}\nroutes: []\n").server();
        assertThat(none).isEqualTo(GatewayConfig.ServerSpec.DEFAULTS);
        assertThat(empty).isEqualTo(GatewayConfig.ServerSpec.DEFAULTS);
        assertThat(emptyMapping).isEqualTo(GatewayConfig.ServerSpec.DEFAULTS);
    }

    @Test
    void theDefaultsAreTheListenersOwnWithHttp2On() {
        ListenerSettings listener = GatewayConfig.ServerSpec.DEFAULTS.listener();
        assertThat(listener.http2()).as("an empty server: serves HTTP/2").isEqualTo(Http2Settings.enabledDefaults());
        assertThat(listener.withHttp2(Http2Settings.DISABLED)).as("everything else the listener's own")
                .isEqualTo(ListenerSettings.DEFAULTS);
        assertThat(listener.backlog()).isEqualTo(10_000).isEqualTo(listener.maxConnections());
    }

    /** Each default the reference's {@code server} table states is the one the code has. */
    @Test
    void theReferenceStatesTheDefaultsTheCodeHas() throws IOException {
        String doc = Files.readString(Path.of("..", "docs", "configuration.md"));
        String section = doc.substring(doc.indexOf("## `server` — the client-facing listener"),
                doc.indexOf("### `server.ssl`"));
        Map<String, String> stated = new LinkedHashMap<>();
        Matcher m = Pattern.compile("(?m)^\\| `([a-z0-9.-]+)` \\| `([^`]*)`").matcher(section);
        while (m.find()) {
            stated.put(m.group(1), m.group(2));
        }
        GatewayConfig.ServerSpec d = GatewayConfig.ServerSpec.DEFAULTS;
        ListenerSettings l = d.listener();
        Map<String, String> code = new LinkedHashMap<>();
        code.put("address", l.address());
        code.put("port", Integer.toString(l.port()));
        code.put("threads", d.threads().toString());
        code.put("max-connections", Integer.toString(l.maxConnections()));
        code.put("header-timeout", l.headerTimeout().toSeconds() + "s");
        code.put("idle-timeout", l.idleTimeout().toSeconds() + "s");
        code.put("read-timeout", l.readTimeout().toSeconds() + "s");
        code.put("drain-timeout", d.drainTimeout().toSeconds() + "s");
        code.put("linger-timeout", l.lingerTimeout().toSeconds() + "s");
        code.put("trusted-proxies", d.trustedProxies().isEmpty() ? "[]" : d.trustedProxies().toString());
        code.put("max-request-line", Integer.toString(l.limits().maxRequestLineBytes()));
        code.put("max-header-size", Integer.toString(l.limits().maxHeaderBytes()));
        code.put("max-headers", Integer.toString(l.limits().maxHeaderCount()));
        code.put("underscores-in-headers", Boolean.toString(l.underscoresInHeaders()));
        code.put("transport", d.transport().name().toLowerCase(java.util.Locale.ROOT));
        code.put("http2.enabled", Boolean.toString(l.http2().enabled()));
        code.put("http2.max-concurrent-streams", Integer.toString(l.http2().maxConcurrentStreams()));
        code.put("http2.initial-window-size", Integer.toString(l.http2().initialWindowSize()));
        code.put("http2.max-streams-per-connection", Integer.toString(l.http2().maxStreamsPerConnection()));
        code.put("http2.max-resets-per-second", Integer.toString(l.http2().maxResetsPerSecond()));
        code.put("http2.max-control-frames-per-second", Integer.toString(l.http2().maxControlPerSecond()));
        assertThat(stated).containsAllEntriesOf(code);
        assertThat(section).as("backlog: max-connections, at least the listener's default")
                .contains("| `backlog` | `max-connections`, at least `" + l.backlog() + "` |");
    }
}
