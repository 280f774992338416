package io.loomgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.testkit.JarProcess;
import io.loomgate.testkit.UnexpectedExceptionCheck;
import io.loomgate.testkit.PluginJar;
import io.loomgate.testkit.TestOrigin;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A team's own filter and predicate, compiled from source by the test, jarred with META-INF/services, dropped into
 * {@code plugins/} beside the config and used by name in YAML by the packaged gateway.
 */
class PluginJarIT {
    private static final String FILTER = "io.loomgate.filter.FilterFactory";
    private static final String PREDICATE = "io.loomgate.route.PredicateFactory";

    /** Audit=tag adds X-Audit: tag to the response; it throws for a request carrying X-Explode. */
    private static final String AUDIT = """
            package com.example.audit;

            import io.loomgate.filter.FilterChain;
            import io.loomgate.filter.FilterExchange;
            import io.loomgate.filter.FilterFactory;
            import io.loomgate.filter.GatewayFilter;
            import java.util.List;
            import java.util.Map;

            public final class AuditFilterFactory implements FilterFactory {
                public String name() { return "Audit"; }
                public List<String> argNames() { return List.of("tag"); }
                public GatewayFilter create(Map<String, String> args) {
                    String tag = args.get("tag");
                    if (tag == null || tag.isBlank()) {
                        throw new IllegalArgumentException("tag: expected a word, got nothing");
                    }
                    return (FilterExchange x, FilterChain chain) -> {
                        if (x.request().headers().contains("X-Explode")) {
                            throw new IllegalStateException("audit store unavailable");
                        }
                        chain.proceed(x);
                        x.response().headers().add("X-Audit", tag);
                    };
                }
            }
            """;

    /** Canary=on matches requests that carry the cookie canary=1. */
    private static final String CANARY = """
            package com.example.audit;

            import io.loomgate.route.PredicateFactory;
            import io.loomgate.route.RoutePredicate;
            import java.util.List;
            import java.util.Map;

            public final class CanaryPredicateFactory implements PredicateFactory {
                public String name() { return "Canary"; }
                public List<String> argNames() { return List.of("cookie"); }
                public RoutePredicate create(Map<String, String> args) {
                    String cookie = args.getOrDefault("cookie", "canary=1");
                    return c -> {
                        String h = c.request().headers().first("Cookie");
                        return h != null && h.contains(cookie);
                    };
                }
            }
            """;

    /** A factory whose start-up fails: its constructor cannot reach what it needs. */
    private static final String BROKEN = """
            package com.example.broken;

            import io.loomgate.filter.FilterFactory;
            import io.loomgate.filter.GatewayFilter;
            import java.util.List;
            import java.util.Map;

            public final class BrokenFilterFactory implements FilterFactory {
                public BrokenFilterFactory() {
                    throw new IllegalStateException("license file /etc/broken.lic is missing");
                }
                public String name() { return "Broken"; }
                public List<String> argNames() { return List.of(); }
                public GatewayFilter create(Map<String, String> args) { return null; }
            }
            """;

    private static Path auditJar(Path dir) throws Exception {
        return new PluginJar()
                .source("com.example.audit.AuditFilterFactory", AUDIT)
                .source("com.example.audit.CanaryPredicateFactory", CANARY)
                .provides(FILTER, "com.example.audit.AuditFilterFactory")
                .provides(PREDICATE, "com.example.audit.CanaryPredicateFactory")
                .writeTo(dir.resolve("plugins/audit-plugin.jar"));
    }

    @Test
    void aPluginFilterAndPredicateAreUsedByNameAndAThrowingRequestGetsA500Alone(@TempDir Path dir)
            throws Exception {
        auditJar(dir);
        Path yaml = dir.resolve("gateway.yaml");
        try (TestOrigin origin = new TestOrigin()) {
            origin.fallback(r -> TestOrigin.Reply.ok("from origin " + r.target()));
            Files.writeString(yaml, """
                    server:
                      port: 0
                    admin:
                      port: 0
                    routes:
                      - id: canary
                        uri: %1$s
                        predicates: [ "Canary", "Path=/**" ]
                        filters: [ "Audit=canary", "PrefixPath=/canary" ]
                      - id: main
                        uri: %1$s
                        predicates: [ "Path=/**" ]
                        filters:
                          - name: Audit
                            args: { tag: main }
                    """.formatted(origin.uri()));
            try (JarProcess gw = JarProcess.start(List.of("-Xmx128m"),
                    List.of("serve", "--config", yaml.toString()), Map.of()).allowUnexpected()) {
                int port = gw.awaitListening(Duration.ofSeconds(20));
                HttpClient client = HttpClient.newHttpClient();
                HttpResponse<String> plain = get(client, port, "/a", Map.of());
                assertThat(plain.statusCode()).isEqualTo(200);
                assertThat(plain.headers().firstValue("X-Audit")).hasValue("main");
                assertThat(plain.body()).isEqualTo("from origin /a");

                HttpResponse<String> canary = get(client, port, "/a", Map.of("Cookie", "canary=1"));
                assertThat(canary.headers().firstValue("X-Audit")).hasValue("canary");
                assertThat(canary.body()).isEqualTo("from origin /canary/a");

                HttpResponse<String> exploded = get(client, port, "/a", Map.of("X-Explode", "1"));
                assertThat(exploded.statusCode()).isEqualTo(500);
                assertThat(get(client, port, "/b", Map.of()).statusCode()).isEqualTo(200);
                assertThat(gw.output()).contains("plugins [Audit, Canary]").contains("audit store unavailable");
                // Logged as what it is, a bug (the plugin's): the one event of the unexpected-exception logger.
                assertThat(UnexpectedExceptionCheck.inOutput(gw.output())).singleElement().asString()
                        .contains("internal error").contains("audit store unavailable");
            }
        }
    }

    @Test
    void aPluginFilterWithAnUnknownArgumentIsRefusedWithFileAndLine(@TempDir Path dir) throws Exception {
        auditJar(dir);
        Path yaml = dir.resolve("gateway.yaml");
        Files.writeString(yaml, """
                routes:
                  - id: main
                    uri: http://127.0.0.1:9
                    predicates: [ "Path=/**" ]
                    filters:
                      - name: Audit
                        args: { tga: main }
                """);
        try (JarProcess p = JarProcess.start(List.of(), List.of("validate", "--config", yaml.toString()), Map.of())) {
            assertThat(p.awaitExit(Duration.ofSeconds(20))).isEqualTo(2);
            assertThat(p.output()).contains(yaml + ":7:").contains("route 'main'").contains("tga");
        }
        Files.writeString(yaml, Files.readString(yaml).replace("tga", "tag"));
        try (JarProcess p = JarProcess.start(List.of(), List.of("validate", "--config", yaml.toString()), Map.of())) {
            assertThat(p.awaitExit(Duration.ofSeconds(20))).isZero();
            assertThat(p.output()).contains("valid, 1 routes").contains("plugins [Audit, Canary]");
        }
    }

    @Test
    void aPluginThatThrowsAtStartUpRefusesTheConfigWithItsMessage(@TempDir Path dir) throws Exception {
        Path plugins = dir.resolve("team-plugins");
        new PluginJar().source("com.example.broken.BrokenFilterFactory", BROKEN)
                .provides(FILTER, "com.example.broken.BrokenFilterFactory")
                .writeTo(plugins.resolve("broken.jar"));
        Path yaml = dir.resolve("gateway.yaml");
        Files.writeString(yaml, """
                server:
                  port: 0
                routes:
                  - id: main
                    uri: http://127.0.0.1:9
                    predicates: [ "Path=/**" ]
                """);
        try (JarProcess p = JarProcess.start(List.of(),
                List.of("serve", "--config", yaml.toString(), "--plugins", plugins.toString()), Map.of())) {
            assertThat(p.awaitExit(Duration.ofSeconds(20))).isEqualTo(2);
            assertThat(p.output()).contains(plugins.toString()).contains("license file /etc/broken.lic is missing")
                    .doesNotContain("listening on");
        }
    }

    private static HttpResponse<String> get(HttpClient client, int port, String path, Map<String, String> headers)
            throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .timeout(Duration.ofSeconds(10));
        headers.forEach(b::header);
        return client.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }
}
