package io.loomgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.cli.ServedGateway;
import io.loomgate.config.ConfigLoader;
import io.loomgate.config.Plugins;
import io.loomgate.observe.ConfigReloads;
import io.loomgate.testkit.FreePorts;
import io.loomgate.testkit.TestOrigin;
import io.loomgate.testkit.TestOrigin.Reply;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A live reload keeps an open circuit breaker open when it does not change the breaker (session 57): until then every
 * applied reload made every breaker anew, so a reload that only renamed another route closed a breaker that was
 * holding traffic off a failing origin, and the next requests went to it again. A reload that changes the breaker's
 * settings starts it over (closed), as a new breaker.
 */
class BreakerStateAcrossReloadTest {
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @Test
    void anOpenBreakerStaysOpenAcrossAReloadThatDoesNotChangeIt(@TempDir Path dir) throws Exception {
        try (TestOrigin failing = new TestOrigin(); TestOrigin other = new TestOrigin()) {
            failing.fallback(r -> Reply.status(500));
            other.fallback(r -> Reply.ok("other"));
            Path file = dir.resolve("gateway.yaml");
            String routes = "routes:\n"
                    + "  - id: guarded\n    uri: " + failing.uri() + "\n    predicates: [ \"Path=/guarded/**\" ]\n"
                    + "    filters:\n      - name: CircuitBreaker\n        args: { name: guard, statusCodes: [ 500 ], "
                    + "sliding-window: 2, minimum-calls: 2, wait-in-open: %s }\n"
                    + "  - id: %s\n    uri: " + other.uri() + "\n    predicates: [ \"Path=/other/**\" ]\n";
            try (ServedGateway gw = FreePorts.start(admin -> {
                Files.writeString(file, head(admin) + routes.formatted("60s", "other"));
                return ServedGateway.start(ConfigLoader.load(file), Plugins.NONE, new ServedGateway.Reloading(file,
                        UnaryOperator.identity(), false, false, Duration.ofMillis(50)));
            })) {
                assertThat(status(gw, "/guarded/1")).isEqualTo(500);
                assertThat(status(gw, "/guarded/2")).isEqualTo(500);
                assertThat(status(gw, "/guarded/3")).as("two failures of two: the breaker is open").isEqualTo(503);
                assertThat(failing.requestCount()).isEqualTo(2);

                // Another route renamed: the breaker's route and settings are the same.
                Files.writeString(file, head(gw.adminPort()) + routes.formatted("60s", "renamed"));
                ConfigReloads.Result renamed = gw.reload();
                assertThat(renamed.outcome()).as(renamed.message()).isEqualTo("applied");
                assertThat(status(gw, "/other/x")).isEqualTo(200);
                assertThat(status(gw, "/guarded/4")).as("the breaker is still open after the reload").isEqualTo(503);
                assertThat(failing.requestCount()).as("nothing more reached the failing origin").isEqualTo(2);

                // The breaker's own settings changed: a new breaker, closed, so the next request goes through.
                Files.writeString(file, head(gw.adminPort()) + routes.formatted("30s", "renamed"));
                ConfigReloads.Result changed = gw.reload();
                assertThat(changed.outcome()).as(changed.message()).isEqualTo("applied");
                assertThat(status(gw, "/guarded/5")).as("a breaker with other settings starts closed").isEqualTo(500);
                assertThat(failing.requestCount()).isEqualTo(3);
            }
        }
    }

    private static String head(int adminPort) {
        return "server:\n  address: 127.0.0.1\n  port: 0\nadmin:\n  address: 127.0.0.1\n  port: " + adminPort
                + "\naccess-log:\n  enabled: false\n";
    }

    private static int status(ServedGateway gw, String path) throws Exception {
        HttpRequest get = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + gw.port() + path))
                .timeout(Duration.ofSeconds(10)).build();
        return HTTP.send(get, HttpResponse.BodyHandlers.discarding()).statusCode();
    }
}
