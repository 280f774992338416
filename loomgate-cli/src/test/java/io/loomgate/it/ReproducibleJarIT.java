package io.loomgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.jar.JarFile;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The runnable jars are reproducible: packaging them a second time from the same tree gives the same bytes as the
 * build that ran this test. Cheap on purpose: the second build gets the poms, the wrapper and the classes the first
 * build compiled (no sources, so nothing is compiled again) in a temporary directory and runs only the packaging,
 * offline ({@code package -DskipTests}: the jars, the license check and both shaded jars). What differs between two
 * packagings (entry times, the order of entries, a build-time manifest entry) shows up here; the compiler's own
 * determinism is the JDK's business. Also: the manifests carry {@code Implementation-Version}, and every jar carries
 * the project's {@code META-INF/LICENSE} and {@code META-INF/NOTICE}.
 */
class ReproducibleJarIT {
    /** The modules of the root pom's main {@code <modules>} list (a new module is copied without editing this test). */
    private static final List<String> MODULES = modules();
    /** The modules whose compiled classes the copy packages (all but the example and the bench programs). */
    private static final List<String> CODE = MODULES.stream()
            .filter(m -> !m.startsWith("examples/") && !m.equals("bench"))
            .toList();
    private static final List<String> JARS = List.of("loomgate-gateway.jar", "loomgate.jar", "loomgate-cli.jar");

    private Path root;
    private Path copy;

    private static List<String> modules() {
        try {
            String pom = Files.readString(RepoRoot.find().resolve("pom.xml"));
            int start = pom.indexOf("<modules>");
            String block = pom.substring(start, pom.indexOf("</modules>", start));
            return Pattern.compile("<module>([^<]+)</module>").matcher(block).results()
                    .map(r -> r.group(1).trim())
                    .toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @BeforeEach
    void copyTheTree() throws IOException {
        root = RepoRoot.find();
        copy = Files.createTempDirectory("loomgate-repro");
        Files.copy(root.resolve("pom.xml"), copy.resolve("pom.xml"));
        for (String m : MODULES) {
            Files.createDirectories(copy.resolve(m));
            Files.copy(root.resolve(m).resolve("pom.xml"), copy.resolve(m).resolve("pom.xml"));
        }
        for (String f : List.of("mvnw", "LICENSE", "NOTICE")) {
            Files.copy(root.resolve(f), copy.resolve(f), StandardCopyOption.COPY_ATTRIBUTES);
        }
        copyDir(root.resolve(".mvn"), copy.resolve(".mvn"));
        copyDir(root.resolve("src/license"), copy.resolve("src/license")); // the module jars' THIRD-PARTY template
        // the program the packaging runs on the shaded jars (profile upgrade-old-class-files)
        copyDir(root.resolve("loomgate-cli/src/build"), copy.resolve("loomgate-cli/src/build"));
        for (String m : CODE) {
            copyDir(root.resolve(m).resolve("target/classes"), copy.resolve(m).resolve("target/classes"));
        }
        // loomgate-lab and loomgate-cli test against the core's test-jar: the reactor packages it too
        copyDir(root.resolve("loomgate-core/target/test-classes"), copy.resolve("loomgate-core/target/test-classes"));
    }

    @AfterEach
    void removeTheCopy() throws IOException {
        deleteDir(copy);
    }

    @Test
    void packagingTwiceFromTheSameTreeGivesTheSameBytes() throws Exception {
        RepoScript build = RepoScript.run(Duration.ofMinutes(4),
                Map.of("JAVA_HOME", System.getProperty("java.home")),
                List.of("bash", "-c", "cd '" + copy + "' && ./mvnw -B -q -o -pl loomgate-cli -am package -DskipTests"
                        + " -Dloomgate.commit=" + builtCommit()));
        assertThat(build.exit()).as(build.output()).isZero();

        for (String jar : JARS) {
            Path first = root.resolve("loomgate-cli/target").resolve(jar);
            Path second = copy.resolve("loomgate-cli/target").resolve(jar);
            assertThat(sha256(second)).as("%s packaged twice from the same tree", jar).isEqualTo(sha256(first));
        }
    }

    @Test
    void everyJarCarriesItsVersionTheLicenseAndTheNotice() throws Exception {
        List<Path> jars = List.of(root.resolve("loomgate-cli/target/loomgate-gateway.jar"),
                root.resolve("loomgate-cli/target/loomgate.jar"), root.resolve("loomgate-cli/target/loomgate-cli.jar"),
                onlyJar(root.resolve("loomgate-core/target"), "loomgate-core-"),
                onlyJar(root.resolve("loomgate-lab/target"), "loomgate-lab-"),
                onlyJar(root.resolve("loomgate-conscrypt/target"), "loomgate-conscrypt-"),
                onlyJar(root.resolve("loomgate-redis/target"), "loomgate-redis-"),
                onlyJar(root.resolve("loomgate-jwt/target"), "loomgate-jwt-"),
                onlyJar(root.resolve("loomgate-resilience4j/target"), "loomgate-resilience4j-"),
                onlyJar(root.resolve("loomgate-tracing/target"), "loomgate-tracing-"));
        String license = Files.readString(root.resolve("LICENSE"));
        for (Path jar : jars) {
            try (JarFile j = new JarFile(jar.toFile())) {
                assertThat(j.getManifest().getMainAttributes().getValue("Implementation-Version"))
                        .as("%s: Implementation-Version", jar).isNotBlank().doesNotContain("SNAPSHOT");
                assertThat(j.getEntry("META-INF/LICENSE")).as("%s: META-INF/LICENSE", jar).isNotNull();
                assertThat(new String(j.getInputStream(j.getEntry("META-INF/LICENSE")).readAllBytes()))
                        .as("%s: META-INF/LICENSE is the project's", jar).isEqualTo(license);
                assertThat(j.getEntry("META-INF/NOTICE")).as("%s: META-INF/NOTICE", jar).isNotNull();
                assertThat(new String(j.getInputStream(j.getEntry("META-INF/NOTICE")).readAllBytes()))
                        .as("%s: META-INF/NOTICE names the project", jar).contains("Loomgate");
                // what the jar bundles (the runnable jars) or, for a module's own jar, that it bundles nothing
                assertThat(j.getEntry("META-INF/THIRD-PARTY.txt")).as("%s: META-INF/THIRD-PARTY.txt", jar).isNotNull();
            }
        }
        for (String shaded : List.of("loomgate-gateway.jar", "loomgate.jar")) {
            try (JarFile j = new JarFile(root.resolve("loomgate-cli/target").resolve(shaded).toFile())) {
                assertThat(j.getEntry("META-INF/THIRD-PARTY.txt")).as("%s: the bundled licenses", shaded).isNotNull();
                // every optional module, without what it declares but never loads, and Conscrypt's Linux natives only
                assertThat(j.getEntry("io/loomgate/security/JwtAuthFilter.class")).as(shaded).isNotNull();
                assertThat(j.getEntry("io/loomgate/ratelimit/RedisStore.class")).as(shaded).isNotNull();
                assertThat(j.getEntry("io/loomgate/resilience/Resilience4jBreakers.class")).as(shaded).isNotNull();
                assertThat(j.getEntry("io/loomgate/tls/ConscryptTls.class")).as(shaded).isNotNull();
                assertThat(j.getEntry("META-INF/native/libconscrypt_openjdk_jni-linux-x86_64.so")).as(shaded)
                        .isNotNull();
                assertThat(j.getEntry("META-INF/native/libconscrypt_openjdk_jni-linux-aarch_64.so")).as(shaded)
                        .isNotNull();
                assertThat(j.stream().map(e -> e.getName()).filter(n -> n.startsWith("kotlin/")
                        || n.startsWith("com/google/gson/") || n.startsWith("org/json/")
                        || n.startsWith("io/prometheus/metrics/shaded/") || n.startsWith("META-INF/native/")
                        && (n.contains("osx") || n.contains("windows")))).as(shaded).isEmpty();
            }
        }
    }

    /** The commit the first build recorded, so the second records the same (both come from the same tree). */
    private String builtCommit() throws IOException {
        try (JarFile j = new JarFile(root.resolve("loomgate-cli/target/loomgate-gateway.jar").toFile())) {
            String commit = j.getManifest().getMainAttributes().getValue("SCM-Revision");
            return commit == null ? "unknown" : commit;
        }
    }

    private static Path onlyJar(Path dir, String prefix) throws IOException {
        try (var files = Files.list(dir)) {
            return files.filter(f -> f.getFileName().toString().startsWith(prefix)
                    && f.getFileName().toString().endsWith(".jar") && !f.getFileName().toString().endsWith("-tests.jar"))
                    .findFirst().orElseThrow(() -> new AssertionError("no " + prefix + "*.jar in " + dir));
        }
    }

    private static String sha256(Path file) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(file)));
    }

    private static void copyDir(Path from, Path to) throws IOException {
        if (!Files.isDirectory(from)) {
            return;
        }
        Files.walkFileTree(from, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) throws IOException {
                Files.createDirectories(to.resolve(from.relativize(dir).toString()));
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                Files.copy(file, to.resolve(from.relativize(file).toString()), StandardCopyOption.COPY_ATTRIBUTES);
                return FileVisitResult.CONTINUE;
            }
        });
    }

    private static void deleteDir(Path dir) throws IOException {
        if (dir == null || !Files.exists(dir)) {
            return;
        }
        Files.walkFileTree(dir, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                Files.delete(file);
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult postVisitDirectory(Path d, IOException e) throws IOException {
                Files.delete(d);
                return FileVisitResult.CONTINUE;
            }
        });
    }
}
