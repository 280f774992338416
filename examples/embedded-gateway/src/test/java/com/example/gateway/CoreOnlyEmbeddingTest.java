package com.example.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.loomgate.Loomgate;
import io.loomgate.config.ConfigException;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The example depends on loomgate-cli alone and so gets the lean core: none of the optional modules nor their
 * libraries (Conscrypt and its native libraries, Jedis, nimbus-jose-jwt, Resilience4j, Kotlin, OpenTelemetry) are on
 * its class path, nor Jackson's object mapper (the core uses the streaming API only),
 * which is the one Maven resolved for it (the dependency tree, as the test runs it). A configuration naming one of
 * the optional parts is refused with the module to add, its file, line and key.
 */
class CoreOnlyEmbeddingTest {
    /** The optional modules, as jars or (in the reactor) as their target/classes directories. */
    private static final List<String> MODULES = List.of("loomgate-conscrypt", "loomgate-redis", "loomgate-jwt",
            "loomgate-resilience4j", "loomgate-tracing");
    private static final List<String> LIBRARIES = List.of("conscrypt", "jedis", "commons-pool2", "nimbus-jose-jwt",
            "resilience4j", "kotlin", "gson", "json-2", "opentelemetry", "jackson-databind");

    @Test
    void theClassPathHoldsNoOptionalModuleNorItsLibrary() {
        List<String> entries = Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
                .map(p -> p.replace('\\', '/').toLowerCase(Locale.ROOT)).toList();
        assertThat(entries).anyMatch(e -> e.contains("loomgate-core")).anyMatch(e -> e.contains("jackson-core"));
        for (String module : MODULES) {
            assertThat(entries).as("class path entries of " + module).noneMatch(e -> e.contains(module));
        }
        for (String library : LIBRARIES) {
            assertThat(entries).as("jars named like " + library)
                    .noneMatch(e -> e.substring(e.lastIndexOf('/') + 1).startsWith(library));
        }
        assertThat(resource("org/conscrypt/Conscrypt.class")).isFalse();
        assertThat(resource("redis/clients/jedis/Jedis.class")).isFalse();
        assertThat(resource("com/nimbusds/jwt/SignedJWT.class")).isFalse();
        assertThat(resource("io/github/resilience4j/circuitbreaker/CircuitBreaker.class")).isFalse();
        assertThat(resource("kotlin/Unit.class")).isFalse();
        assertThat(resource("io/opentelemetry/sdk/trace/SdkTracerProvider.class")).isFalse();
    }

    private static boolean resource(String name) {
        return CoreOnlyEmbeddingTest.class.getClassLoader().getResource(name) != null;
    }

    @Test
    void aConfigUsingAnOptionalPartNamesTheModuleToAdd(@TempDir Path dir) throws Exception {
        assertThat(refusal(dir, """
                routes:
                  - id: api
                    uri: http://127.0.0.1:9
                    filters:
                      - JwtAuth=https://idp.example/jwks
                """)).endsWith("gateway.yaml:5: route 'api': filter 'JwtAuth' needs the module "
                + "io.loomgate:loomgate-jwt (nimbus-jose-jwt), which is not on the class path: add it beside "
                + "loomgate-core (the distribution jars carry it)");
        assertThat(refusal(dir, """
                routes:
                  - id: api
                    uri: http://127.0.0.1:9
                    filters:
                      - CircuitBreaker=api
                """)).endsWith("gateway.yaml:5: route 'api': filter 'CircuitBreaker' needs the module "
                + "io.loomgate:loomgate-resilience4j (Resilience4j), which is not on the class path: add it beside "
                + "loomgate-core (the distribution jars carry it)");
        assertThat(refusal(dir, """
                redis:
                  url: redis://127.0.0.1:6379
                routes:
                  - id: api
                    uri: http://127.0.0.1:9
                    filters:
                      - name: RequestRateLimiter
                        args: { replenish-rate: 10, store: redis }
                """)).endsWith("gateway.yaml:8: route 'api': filter 'RequestRateLimiter': store: redis needs the "
                + "module loomgate-redis (Jedis), which is not on the class path: add io.loomgate:loomgate-redis "
                + "beside loomgate-core");
        assertThat(refusal(dir, """
                upstream:
                  ssl:
                    provider: conscrypt
                routes:
                  - id: api
                    uri: https://127.0.0.1:9
                """)).endsWith("gateway.yaml:3: upstream.ssl.provider: provider conscrypt needs the module "
                + "loomgate-conscrypt (Conscrypt), which is not on the class path: add io.loomgate:loomgate-conscrypt "
                + "beside loomgate-core, or use provider: jdk");
        assertThat(refusal(dir, """
                tracing:
                  enabled: true
                routes:
                  - id: api
                    uri: http://127.0.0.1:9
                """)).endsWith("gateway.yaml: tracing.enabled: tracing needs the module io.loomgate:loomgate-tracing "
                + "(the OpenTelemetry SDK), which is not on the class path: add it beside loomgate-core (the "
                + "distribution jars carry it)");
    }

    private static String refusal(Path dir, String yaml) throws Exception {
        Path file = dir.resolve("gateway.yaml");
        Files.writeString(file, yaml);
        try (Loomgate ignored = Loomgate.builder().config(file).port(0).start()) {
            throw new AssertionError("accepted:\n" + yaml);
        } catch (ConfigException e) {
            return e.getMessage();
        }
    }
}
