package io.loomgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.AppenderBase;
import io.loomgate.cli.ServedGateway;
import io.loomgate.config.ConfigLoader;
import io.loomgate.config.Plugins;
import io.loomgate.observe.AccessLog;
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
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * Each exchange says which configuration served it (session 58): the routing table is stamped with its generation at
 * the swap, and the JSON access log's {@code loomgate.config_generation} is that of the table the exchange matched.
 * An exchange that straddles a reload keeps the generation it matched in while the next one reports the new one;
 * before, only the gauge {@code loomgate_config_generation} said what was served, so the two could not be told apart.
 * {@code /routes} shows the generation served.
 */
class ConfigGenerationPerExchangeTest {
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @Test
    void anExchangeThatStraddlesAReloadKeepsItsGenerationInTheAccessLog(@TempDir Path dir) throws Exception {
        List<String> access = new CopyOnWriteArrayList<>();
        AppenderBase<ILoggingEvent> capture = new AppenderBase<>() {
            @Override
            protected void append(ILoggingEvent e) {
                access.addAll(List.of(e.getFormattedMessage().split("\n"))); // lines may come batched
            }
        };
        capture.start();
        Logger accessLogger = (Logger) LoggerFactory.getLogger(AccessLog.LOGGER);
        accessLogger.addAppender(capture);
        CountDownLatch arrived = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        try (TestOrigin origin = new TestOrigin()) {
            origin.fallback(r -> {
                if (r.target().startsWith("/app/slow")) { // held at the origin until the reload is applied
                    arrived.countDown();
                    try {
                        release.await(10, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
                return Reply.ok("ok");
            });
            Path file = dir.resolve("gateway.yaml");
            String routes = "routes:\n  - id: %s\n    uri: " + origin.uri() + "\n    predicates: [ \"Path=/app/**\" ]\n";
            try (ServedGateway gw = FreePorts.start(admin -> {
                Files.writeString(file, head(admin) + routes.formatted("app"));
                return ServedGateway.start(ConfigLoader.load(file), Plugins.NONE, new ServedGateway.Reloading(file,
                        UnaryOperator.identity(), false, false, Duration.ofMillis(50)));
            })) {
                assertThat(get(gw.port(), "/app/first").statusCode()).isEqualTo(200);
                assertThat(accessLine(access, "/app/first")).contains("\"loomgate.config_generation\":1");
                assertThat(get(gw.port(), "/nowhere").statusCode()).isEqualTo(404);
                assertThat(accessLine(access, "/nowhere")).as("no route matched: no generation")
                        .doesNotContain("loomgate.config_generation");

                CompletableFuture<HttpResponse<String>> slow = HTTP.sendAsync(request(gw.port(), "/app/slow"),
                        HttpResponse.BodyHandlers.ofString());
                assertThat(arrived.await(10, TimeUnit.SECONDS)).as("the slow request reached the origin").isTrue();
                Files.writeString(file, head(gw.adminPort()) + routes.formatted("app-renamed"));
                ConfigReloads.Result r = gw.reload();
                assertThat(r.outcome()).as(r.message()).isEqualTo("applied");
                assertThat(get(gw.port(), "/app/after").statusCode()).isEqualTo(200);
                release.countDown();
                assertThat(slow.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(200);

                assertThat(accessLine(access, "/app/after")).contains("\"loomgate.config_generation\":2")
                        .contains("\"loomgate.route\":\"app-renamed\"");
                assertThat(accessLine(access, "/app/slow")).as("matched before the reload, answered after it")
                        .contains("\"loomgate.config_generation\":1").contains("\"loomgate.route\":\"app\"");
                assertThat(get(gw.adminPort(), "/routes").body()).contains("\"generation\" : 2");
            }
        } finally {
            release.countDown();
            accessLogger.detachAppender(capture);
        }
    }

    /** The access line of {@code path}, polled with a deadline: the line is written after the answer is sent. */
    private static String accessLine(List<String> access, String path) throws InterruptedException {
        long end = System.nanoTime() + 10_000_000_000L;
        while (System.nanoTime() < end) {
            for (String line : access) {
                if (line.contains("\"url.original\":\"" + path + "\"")) {
                    return line;
                }
            }
            Thread.sleep(10);
        }
        throw new AssertionError("no access-log line for " + path + " in " + access);
    }

    private static String head(int adminPort) {
        return "server:\n  address: 127.0.0.1\n  port: 0\nadmin:\n  address: 127.0.0.1\n  port: " + adminPort
                + "\naccess-log:\n  enabled: true\n  format: json\n";
    }

    private static HttpRequest request(int port, String path) {
        return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).timeout(Duration.ofSeconds(10))
                .build();
    }

    private static HttpResponse<String> get(int port, String path) throws Exception {
        return HTTP.send(request(port, path), HttpResponse.BodyHandlers.ofString());
    }
}
