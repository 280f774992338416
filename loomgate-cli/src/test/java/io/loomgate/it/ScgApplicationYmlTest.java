package io.loomgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.config.ConfigLoader;
import io.loomgate.config.GatewayConfig;
import io.loomgate.testkit.RedisServer;
import io.loomgate.testkit.RunningGateway;
import io.loomgate.testkit.TestOrigin;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A Spring Cloud Gateway {@code application.yml} (test resource scg/application.yml), loaded from its file as
 * {@code serve --config application.yml} loads it and served: its routes, filters, default filters, global CORS and
 * Spring Data Redis settings all take effect (issue 37).
 */
class ScgApplicationYmlTest {

    @Test
    void anScgApplicationYmlIsServedAsWritten(@TempDir Path dir) throws Exception {
        try (RedisServer redis = RedisServer.start(); TestOrigin origin = new TestOrigin()) {
            Path file = dir.resolve("application.yml");
            try (var in = getClass().getResourceAsStream("/scg/application.yml")) {
                Files.write(file, in.readAllBytes());
            }
            GatewayConfig config = ConfigLoader.parse(Files.readString(file), file.toString(),
                    Map.of("ORIGIN", origin.uri(), "REDIS_PORT", Integer.toString(redis.port())));
            assertThat(config.server().listener().port()).isEqualTo(8080); // the file's own; the test serves on a free port
            try (RunningGateway gw = RunningGateway.start(config)) {
                HttpResponse<String> r = gw.send(gw.request("/users/42").header("Origin", "https://docs.spring.io"));
                assertThat(r.statusCode()).isEqualTo(200);
                TestOrigin.Recorded seen = origin.takeRequest();
                assertThat(seen.target()).isEqualTo("/42");
                assertThat(seen.header("X-Request-Red")).isEqualTo("blue");
                assertThat(r.headers().firstValue("X-Served-By")).contains("edge");
                assertThat(r.headers().firstValue("Access-Control-Allow-Origin")).contains("https://docs.spring.io");

                HttpResponse<String> other = gw.send(gw.request("/users/42").header("Origin", "https://evil.test"));
                assertThat(other.headers().firstValue("Access-Control-Allow-Origin")).isEmpty();

                HttpResponse<String> choc = gw.send(gw.request("/choc/1").header("Cookie", "chocolate=chip")
                        .header("X-Forwarded-For", "192.168.1.20"));
                assertThat(choc.statusCode()).isEqualTo(200);
                assertThat(gw.send(gw.request("/choc/1").header("Cookie", "chocolate=mint")
                        .header("X-Forwarded-For", "192.168.1.20")).statusCode()).isEqualTo(404);
                assertThat(gw.send(gw.request("/choc/1").header("Cookie", "chocolate=chip")
                        .header("X-Forwarded-For", "10.0.0.1")).statusCode()).isEqualTo(404);

                // requestedTokens 2 of a bucket of 2 refilled at 1/s: the second request within 2 s is refused.
                HttpResponse<String> first = gw.send(gw.request("/limited/a").header("X-Api-Key", "k1"));
                HttpResponse<String> second = gw.send(gw.request("/limited/a").header("X-Api-Key", "k1"));
                assertThat(first.statusCode()).isEqualTo(200);
                assertThat(second.statusCode()).isEqualTo(429);
                assertThat(second.headers().firstValue("X-RateLimit-Burst-Capacity")).contains("2");
            }
        }
    }
}
