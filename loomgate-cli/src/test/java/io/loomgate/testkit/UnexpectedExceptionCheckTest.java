package io.loomgate.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.loomgate.cli.Gateway;
import io.loomgate.config.ConfigLoader;
import io.loomgate.config.Plugins;
import io.loomgate.filter.FilterFactory;
import io.loomgate.filter.GatewayFilter;
import java.lang.reflect.Proxy;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The shared check itself: a handler that throws (a filter's bug) is a 500 and an event of the unexpected-exception
 * logger, which fails the test it happens in; the same event is found in a gateway process's output, in text and in
 * JSON, and nothing else is.
 */
class UnexpectedExceptionCheckTest {

    /** Throw=on throws from the filter chain: a bug the proxy answers with 500. */
    private static final FilterFactory THROWING = new FilterFactory() {
        @Override
        public String name() {
            return "Throw";
        }

        @Override
        public List<String> argNames() {
            return List.of();
        }

        @Override
        public GatewayFilter create(Map<String, String> args) {
            return (exchange, chain) -> {
                throw new IllegalStateException("the filter's own bug");
            };
        }
    };

    /** A context with no test method or class, so nothing is exempt. */
    private static ExtensionContext context() {
        return (ExtensionContext) Proxy.newProxyInstance(ExtensionContext.class.getClassLoader(),
                new Class<?>[] {ExtensionContext.class}, (proxy, method, args) -> switch (method.getName()) {
                    case "getElement", "getTestClass", "getTestMethod" -> Optional.empty();
                    default -> throw new UnsupportedOperationException(method.getName());
                });
    }

    @Test
    void anExceptionEscapingAHandlerFailsTheTestItHappensIn() throws Exception {
        try (TestOrigin origin = new TestOrigin();
             Gateway gw = RunningGateway.onTheTransportAsked(Gateway.start(RunningGateway.onTransportUnderTest(
                     ConfigLoader.parse("""
                     server: { address: 127.0.0.1, port: 0 }
                     admin: { port: 0 }
                     routes:
                       - { id: main, uri: "${ORIGIN}", predicates: [ "Path=/**" ], filters: [ "Throw" ] }
                     """, "gateway.yaml", Map.of("ORIGIN", origin.uri()))),
                     Plugins.of(List.of(THROWING), List.of()), Gateway.Observers.NONE))) {
            HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                            URI.create("http://127.0.0.1:" + gw.port() + "/x")).timeout(Duration.ofSeconds(10)).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(r.statusCode()).isEqualTo(500);
        }
        // What the extension does after this test: here by hand, so that the failure can be asserted (and the event
        // it drains does not fail this test).
        assertThatThrownBy(() -> new UnexpectedExceptionCheck().afterEach(context()))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("1 unexpected exception")
                .hasMessageContaining("java.lang.IllegalStateException: the filter's own bug");
        new UnexpectedExceptionCheck().afterEach(context()); // drained: the next test starts clean
    }

    @Test
    void aGatewayProcessOutputIsCheckedInTextAndInJson() {
        String text = """
                2026-11-29T03:10:01.001+00:00 INFO  [main] ServedGateway - loomgate listening on 127.0.0.1:8080
                2026-11-29T03:10:02.002+00:00 ERROR [conn-1-127.0.0.1:5000] unexpected - connection 1: handler failed on GET /x
                java.lang.ArrayIndexOutOfBoundsException: Index -1 out of bounds for length 5
                \tat io.loomgate.observe.LazyCounters.get(LazyCounters.java:24)
                2026-11-29T03:10:03.003+00:00 ERROR [main] ConfigWatcher - config watch of gateway.yaml failed; unexpected - not this
                2026-11-29T03:10:04.004+00:00 WARN  [conn-2] Connector - upstream unexpected - not this either
                2026-11-29T03:10:05.005+00:00 ERROR [h2-3] unexpected trace.id=4bf92f3577b34da6a3ce929d0e0e4736 span.id=00f067aa0ba902b7 - GET /y (route 'r'): internal error
                """;
        assertThat(UnexpectedExceptionCheck.inOutput(text)).containsExactly(
                "2026-11-29T03:10:02.002+00:00 ERROR [conn-1-127.0.0.1:5000] unexpected - connection 1: handler failed "
                        + "on GET /x\njava.lang.ArrayIndexOutOfBoundsException: Index -1 out of bounds for length 5",
                "2026-11-29T03:10:05.005+00:00 ERROR [h2-3] unexpected trace.id=4bf92f3577b34da6a3ce929d0e0e4736 "
                        + "span.id=00f067aa0ba902b7 - GET /y (route 'r'): internal error\n"); // with the line after
        String json = """
                {"@timestamp":"2026-11-29T03:10:01.001Z", "log.level": "INFO", "message":"up", "ecs.version": "1.2.0","log.logger":"io.loomgate.cli.ServedGateway"}
                {"@timestamp":"2026-11-29T03:10:02.002Z", "log.level":"ERROR", "message":"boom", "ecs.version": "1.2.0","log.logger":"loomgate.unexpected"}
                """;
        assertThat(UnexpectedExceptionCheck.inOutput(json)).singleElement().asString().contains("\"boom\"");
        assertThat(UnexpectedExceptionCheck.inOutput("")).isEmpty();
    }
}
