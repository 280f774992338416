package io.loomgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.testkit.JarProcess;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.jar.Attributes;
import java.util.jar.JarFile;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
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
     * aarch64 natives, Jedis, nimbus-jose-jwt, Resilience4j, Micrometer Prometheus, Jackson YAML, Logback, the
     * OpenTelemetry SDK, trimmed to spans over OTLP HTTP): issue 36's 10 MB, 10 MiB. The library parts no class of the
     * jar refers to are left out (loomgate-cli/pom.xml's gateway filters; 10,272,450 bytes on 2026-11-29). The one
     * place the limit is written.
     */
    static final long GATEWAY_JAR_LIMIT_BYTES = 10L << 20;

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
                "ch/qos/logback/classic/Logger.class",
                "io/opentelemetry/exporter/otlp/http/trace/OtlpHttpSpanExporter.class");
        assertThat(entries).as("Jackson's object mapper, Kotlin, gson, org.json are not")
                .noneMatch(e -> e.startsWith("com/fasterxml/jackson/databind/") || e.startsWith("kotlin/")
                        || e.startsWith("com/google/gson/") || e.startsWith("org/json/"));
        assertThat(stored).as("entries stored uncompressed").isEmpty();
        assertThat(Files.size(jar)).as(jar + " in bytes").isLessThanOrEqualTo(GATEWAY_JAR_LIMIT_BYTES);
    }
    private static final Pattern SHARED_NAMES = Pattern.compile("(?i)(license|notice|readme|about)[^/]*");
    /** A THIRD-PARTY.txt line: "(License) ... Name (group:artifact:version - url)". */
    private static final Pattern LISTED = Pattern.compile("\\(([^ :()]+):([^ :()]+):([^ :()]+) - [^()]*\\)\\s*$");

    /**
     * Each runnable jar's META-INF/THIRD-PARTY.txt (generated from the dependency tree by license-maven-plugin, one
     * list per jar) names exactly the libraries whose classes the jar holds: every listed library has classes in
     * it, and every class in it that is not Loomgate's comes from a listed library. The libraries are the jars of
     * this test's class path, which Maven resolved from the same tree (plus test-only ones, which no jar holds).
     */
    @Test
    void eachJarsThirdPartyListNamesWhatItHolds() throws Exception {
        Map<String, Set<String>> classesByJar = new HashMap<>();
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            if (entry.endsWith(".jar") && !entry.contains("loomgate-")) {
                try (ZipFile zip = new ZipFile(entry)) {
                    // Its classes and resources (the embedded PostgreSQL jar has no classes); not the META-INF files
                    // nor the files many jars have under one name (module-info.class, LICENSE.txt, ...).
                    classesByJar.put(entry.replace('\\', '/'), zip.stream().filter(e -> !e.isDirectory())
                            .map(ZipEntry::getName).filter(n -> !n.startsWith("META-INF/")
                                    && !n.endsWith("module-info.class") && !n.endsWith("package-info.class")
                                    && !SHARED_NAMES.matcher(n).matches())
                            .collect(Collectors.toSet()));
                }
            }
        }
        for (Path jar : List.of(JarProcess.gatewayJar(), JarProcess.jar())) {
            Set<String> held;
            String list;
            try (ZipFile zip = new ZipFile(jar.toFile())) {
                held = zip.stream().map(ZipEntry::getName).collect(Collectors.toSet());
                ZipEntry thirdParty = zip.getEntry("META-INF/THIRD-PARTY.txt");
                assertThat(thirdParty).as(jar + ": META-INF/THIRD-PARTY.txt").isNotNull();
                list = new String(zip.getInputStream(thirdParty).readAllBytes(), StandardCharsets.UTF_8);
            }
            Set<String> listedJars = new TreeSet<>();
            for (String line : list.lines().filter(l -> l.startsWith("     (")).toList()) {
                Matcher m = LISTED.matcher(line);
                assertThat(m.find()).as("a library line of " + jar + ": " + line).isTrue();
                String suffix = "/" + m.group(1).replace('.', '/') + "/" + m.group(2) + "/" + m.group(3) + "/"
                        + m.group(2) + "-" + m.group(3) + ".jar";
                String library = classesByJar.keySet().stream().filter(k -> k.endsWith(suffix)).findFirst()
                        .orElseThrow(() -> new AssertionError(jar + " lists " + m.group(1) + ":" + m.group(2) + ":"
                                + m.group(3) + ", which is not on the class path Maven resolved"));
                assertThat(classesByJar.get(library)).as(jar + " lists " + library + " but holds none of its classes")
                        .containsAnyElementsOf(held);
                listedJars.add(library);
            }
            Set<String> unlisted = new TreeSet<>();
            for (Map.Entry<String, Set<String>> library : classesByJar.entrySet()) {
                if (!listedJars.contains(library.getKey())
                        && library.getValue().stream().anyMatch(held::contains)) {
                    unlisted.add(library.getKey());
                }
            }
            assertThat(unlisted).as(jar + " holds classes of libraries its THIRD-PARTY.txt does not name").isEmpty();
        }
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
