package io.loomgate;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Enforces the module and package layering of docs/architecture.md by scanning the imports (and fully qualified
 * references) of every main source file of every module. A package may use only the loomgate packages listed for it,
 * the core packages may not use picocli, and each package lives in its module: the lab in loomgate-lab, the commands
 * in loomgate-cli, everything else in loomgate-core (so the gateway artifact carries no lab), except what an optional
 * module holds (its one package, and alone its one library). Maven's module dependencies already stop the core from
 * compiling against the lab and the optional libraries; this test names the rule and the offender.
 */
class LayeringTest {
    /** Runs with the loomgate-core module as its working directory; its siblings are one level up. */
    private static final Path ROOT = Path.of("..");
    private static final List<String> MODULES = List.of("loomgate-core", "loomgate-conscrypt", "loomgate-redis",
            "loomgate-jwt", "loomgate-resilience4j", "loomgate-tracing", "loomgate-lab", "loomgate-cli");

    /**
     * The optional modules: each may hold classes of one core package (the same package in another jar, so the moved
     * classes kept their names) and is the only module that may import its library; loomgate-core imports none of
     * them (it finds each module with ServiceLoader).
     */
    private static final Map<String, String> OPTIONAL_PACKAGE = Map.of(
            "loomgate-conscrypt", "tls",
            "loomgate-redis", "ratelimit",
            "loomgate-jwt", "security",
            "loomgate-resilience4j", "resilience",
            "loomgate-tracing", "observe");
    private static final Map<String, String> OPTIONAL_LIBRARY = Map.of(
            "org.conscrypt", "loomgate-conscrypt",
            "redis.clients", "loomgate-redis",
            "org.apache.commons.pool2", "loomgate-redis",
            "com.nimbusds", "loomgate-jwt",
            "io.github.resilience4j", "loomgate-resilience4j",
            "io.opentelemetry", "loomgate-tracing");

    /** package -> loomgate packages it may use (besides itself). */
    private static final Map<String, Set<String>> ALLOWED = Map.ofEntries(
            Map.entry("http", Set.of()),
            Map.entry("threads", Set.of()),
            Map.entry("reload", Set.of()),
            Map.entry("extension", Set.of("http")),
            Map.entry("grpc", Set.of()),
            Map.entry("http1", Set.of("http", "threads")),
            Map.entry("http2", Set.of("http", "threads")),
            Map.entry("tls", Set.of("threads")),
            Map.entry("server", Set.of("http", "http1", "http2", "threads", "tls")),
            Map.entry("upstream", Set.of("http", "http1", "http2", "threads", "tls")),
            Map.entry("filter", Set.of("http", "extension")),
            Map.entry("route", Set.of("http", "filter", "extension", "resilience")),
            Map.entry("proxy", Set.of("http", "http1", "http2", "threads", "server", "route", "filter", "upstream",
                    "resilience", "grpc")),
            Map.entry("ratelimit", Set.of("filter", "http", "extension", "reload")),
            Map.entry("resilience", Set.of("filter", "http", "extension", "reload")),
            Map.entry("security", Set.of("http", "filter", "threads", "extension", "tls")),
            Map.entry("config", Set.of("http", "http2", "route", "filter", "upstream", "threads", "ratelimit",
                    "resilience", "tls", "security", "extension", "server")),
            Map.entry("observe", Set.of("proxy", "server", "upstream", "http", "route", "threads", "ratelimit",
                    "security", "tls", "grpc")),
            Map.entry("lab", Set.of()), // helpers the lab's packages share (stopping a process)
            Map.entry("lab.backend", Set.of("server", "http", "http1", "threads")),
            Map.entry("lab.load", Set.of("http", "http1", "threads")),
            Map.entry("lab.bench", Set.of("lab.load", "threads")),
            Map.entry("", Set.of("*")), // io.loomgate: the embedding API, over the composition root
            Map.entry("cli", Set.of("*")),
            Map.entry("cli.lab", Set.of("*")));

    /** Third-party libraries only the edges may use. */
    private static final Map<String, Set<String>> LIBRARIES = Map.of(
            "com.fasterxml.jackson", Set.of("config", "observe", "lab.bench", "cli", "cli.lab"),
            "picocli", Set.of("cli", "cli.lab"),
            "io.micrometer", Set.of("observe", "cli"),
            "org.HdrHistogram", Set.of("lab.load", "lab.bench", "observe", "cli", "cli.lab"),
            "redis.clients", Set.of("ratelimit"),
            "org.apache.commons.pool2", Set.of("ratelimit"),
            "io.github.resilience4j", Set.of("resilience"),
            "com.nimbusds", Set.of("security"),
            "org.conscrypt", Set.of("tls"),
            "io.opentelemetry", Set.of("observe"));

    private static final Pattern REF = Pattern.compile("\\bio\\.loomgate\\.([a-z0-9]+(?:\\.[a-z0-9]+)?)");

    @Test
    void everyPackageUsesOnlyWhatItMay() throws IOException {
        List<String> violations = new ArrayList<>();
        for (String module : MODULES) {
            checkModule(module, violations);
        }
        assertThat(violations).isEmpty();
    }

    private static void checkModule(String module, List<String> violations) throws IOException {
        Path main = ROOT.resolve(module).resolve("src/main/java/io/loomgate");
        assertThat(main).as("module sources").isDirectory();
        try (Stream<Path> files = Files.walk(main)) {
            for (Path file : files.filter(p -> p.toString().endsWith(".java")).toList()) {
                String pkg = packageOf(main, file);
                if (!moduleOf(pkg).equals(module) && !pkg.equals(OPTIONAL_PACKAGE.get(module))) {
                    violations.add(file + ": package '" + pkg + "' belongs in " + moduleOf(pkg));
                }
                Set<String> allowed = ALLOWED.get(pkg);
                if (allowed == null) {
                    violations.add(file + ": package '" + pkg + "' is not in the layering table");
                    continue;
                }
                String source = Files.readString(file);
                Matcher m = REF.matcher(source);
                while (m.find()) {
                    String used = normalise(m.group(1));
                    if (!used.equals(pkg) && !allowed.contains("*") && !allowed.contains(used)
                            && !(pkg.startsWith("lab.") && used.equals("lab"))) {
                        violations.add(file + ": " + pkg + " -> " + used);
                    }
                }
                for (var lib : LIBRARIES.entrySet()) {
                    if (source.contains("import " + lib.getKey()) && !lib.getValue().contains(pkg)) {
                        violations.add(file + ": " + pkg + " imports " + lib.getKey());
                    }
                }
                for (var lib : OPTIONAL_LIBRARY.entrySet()) {
                    if (source.contains("import " + lib.getKey()) && !lib.getValue().equals(module)) {
                        violations.add(file + ": " + module + " imports " + lib.getKey() + ", which only "
                                + lib.getValue() + " may");
                    }
                }
            }
        }
    }

    /**
     * The project's rule for main code: no class over 700 lines (split it along its jobs instead). Stop 61's merges took
     * {@code Http2Connection} to 710 unnoticed; the rule is checked here since.
     */
    @Test
    void noMainSourceFileIsOver700Lines() throws IOException {
        List<String> over = new ArrayList<>();
        for (String module : Stream.concat(MODULES.stream(), Stream.of("loomgate-epoll")).toList()) {
            try (Stream<Path> files = Files.walk(ROOT.resolve(module).resolve("src/main/java"))) {
                for (Path file : files.filter(p -> p.toString().endsWith(".java")).toList()) {
                    long lines = Files.readAllLines(file).size();
                    if (lines > 700) {
                        over.add(file + ": " + lines + " lines");
                    }
                }
            }
        }
        assertThat(over).isEmpty();
    }

    @Test
    void theTableFailsOnAForbiddenImport() {
        // The scanner itself must see a violation: a 'server' file naming 'proxy'.
        Matcher m = REF.matcher("import io.loomgate.proxy.ProxyHandler;");
        assertThat(m.find()).isTrue();
        assertThat(ALLOWED.get("server")).doesNotContain(normalise(m.group(1)));
    }

    private static String packageOf(Path main, Path file) {
        Path rel = main.relativize(file.getParent());
        return rel.toString().replace('/', '.');
    }

    /** The module a package must live in. */
    private static String moduleOf(String pkg) {
        if (pkg.equals("lab") || pkg.startsWith("lab.")) {
            return "loomgate-lab";
        }
        if (pkg.isEmpty() || pkg.equals("cli") || pkg.startsWith("cli.")) {
            return "loomgate-cli";
        }
        return "loomgate-core";
    }

    /** Turns a reference like {@code lab.backend} or {@code http1.HttpInput} into its package name. */
    private static String normalise(String ref) {
        String[] parts = ref.split("\\.");
        if (parts[0].equals("lab") && parts.length > 1) {
            return "lab." + parts[1];
        }
        return parts[0];
    }
}
