package io.loomgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.testkit.JarProcess;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.jar.Attributes;
import java.util.jar.JarFile;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import org.junit.jupiter.api.Test;

/**
 * The gateway artifact is the gateway: {@code loomgate-gateway.jar} carries neither the lab nor its database driver,
 * pool and embedded PostgreSQL, and offers only the gateway's commands; {@code loomgate.jar} keeps every command.
 * It stays under issue 36's size with every optional part. (ServeIT runs {@code serve} from the gateway jar,
 * GatewayJarEveryPartIT every optional part.)
 */
class GatewayJarIT {
    /**
     * The most {@code loomgate-gateway.jar} may weigh with every optional part (Conscrypt with its Linux x86-64 and
     * aarch64 natives, Jedis, nimbus-jose-jwt, Resilience4j, Micrometer Prometheus, Jackson YAML, Logback): 10 MB in
     * decimal megabytes (issue 36). The one place the limit is written.
     */
    static final long GATEWAY_JAR_LIMIT_BYTES = 10_000_000;

    @Test
    void theGatewayJarWithEveryPartStaysUnderItsLimit() throws Exception {
        Path jar = JarProcess.gatewayJar();
        List<String> entries;
        List<String> stored;
        try (ZipFile zip = new ZipFile(jar.toFile())) {
            entries = zip.stream().map(ZipEntry::getName).toList();
            stored = zip.stream().filter(e -> !e.isDirectory() && e.getMethod() == ZipEntry.STORED && e.getSize() > 0)
                    .map(ZipEntry::getName).toList();
        }
        assertThat(entries).as("every optional part and library is in it").contains(
                "META-INF/native/libconscrypt_openjdk_jni-linux-x86_64.so",
                "META-INF/native/libconscrypt_openjdk_jni-linux-aarch_64.so",
                "io/loomgate/tls/ConscryptTls.class", "redis/clients/jedis/Jedis.class",
                "com/nimbusds/jwt/SignedJWT.class",
                "io/github/resilience4j/circuitbreaker/CircuitBreaker.class",
                "io/micrometer/prometheusmetrics/PrometheusMeterRegistry.class",
                "com/fasterxml/jackson/dataformat/yaml/YAMLFactory.class",
                "ch/qos/logback/classic/Logger.class");
        assertThat(entries).as("Jackson's object mapper, Kotlin, gson, org.json are not")
                .noneMatch(e -> e.startsWith("com/fasterxml/jackson/databind/") || e.startsWith("kotlin/")
                        || e.startsWith("com/google/gson/") || e.startsWith("org/json/"));
        assertThat(stored).as("entries stored uncompressed").isEmpty();
        assertThat(Files.size(jar)).as(jar + " in bytes").isLessThanOrEqualTo(GATEWAY_JAR_LIMIT_BYTES);
    }
    @Test
    void theGatewayJarCarriesNoLab() throws Exception {
        List<String> entries;
        try (ZipFile zip = new ZipFile(JarProcess.gatewayJar().toFile())) {
            entries = zip.stream().map(ZipEntry::getName).toList();
        }
        assertThat(entries).contains("io/loomgate/cli/Main.class", "io/loomgate/proxy/ProxyHandler.class");
        assertThat(entries).noneMatch(e -> e.startsWith("io/loomgate/lab/") || e.startsWith("io/loomgate/cli/lab/")
                || e.startsWith("org/postgresql/") || e.startsWith("com/zaxxer/") || e.endsWith(".txz")
                || e.startsWith("io/grpc/") || e.startsWith("io/netty/")); // grpc-java is for the tests only
    }

    @Test
    void eachJarOffersItsCommands() throws Exception {
        assertThat(help(JarProcess.gatewayJar().toString())).contains("serve", "demo").doesNotContain("bench", "backend");
        assertThat(help(JarProcess.jar().toString())).contains("serve", "demo", "backend", "load", "bench");
    }

    @Test
    void versionPrintsTheReleaseAndTheCommitTheJarWasBuiltFrom() throws Exception {
        for (String jar : List.of(JarProcess.gatewayJar().toString(), JarProcess.jar().toString())) {
            Attributes manifest;
            try (JarFile j = new JarFile(jar)) {
                manifest = j.getManifest().getMainAttributes();
            }
            String version = manifest.getValue("Implementation-Version");
            String commit = manifest.getValue("SCM-Revision");
            assertThat(version).as(jar).isNotBlank().doesNotContain("SNAPSHOT");
            assertThat(commit).as(jar).isNotBlank();
            assertThat(run(jar, "--version")).as(jar)
                    .startsWith("loomgate " + version + " (commit " + commit + ") on Java ");
        }
    }

    private static String help(String jar) throws Exception {
        return run(jar, "--help");
    }

    private static String run(String jar, String option) throws Exception {
        Process p = new ProcessBuilder(JarProcess.javaBinary(), "-jar", jar, option).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor()).as(out).isZero();
        return out;
    }
}
