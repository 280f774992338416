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
 * Enforces the package layering of docs/architecture.md by scanning the imports (and fully qualified references) of
 * every main source file. A package may use only the loomgate packages listed for it, and the core packages may not
 * use Jackson, picocli or Micrometer.
 */
class LayeringTest {
    private static final Path MAIN = Path.of("src/main/java/io/loomgate");

    /** package -> loomgate packages it may use (besides itself). */
    private static final Map<String, Set<String>> ALLOWED = Map.ofEntries(
            Map.entry("http", Set.of()),
            Map.entry("threads", Set.of()),
            Map.entry("http1", Set.of("http")),
            Map.entry("server", Set.of("http", "http1", "threads")),
            Map.entry("upstream", Set.of("http", "http1", "threads")),
            Map.entry("filter", Set.of("http")),
            Map.entry("route", Set.of("http", "filter")),
            Map.entry("proxy", Set.of("http", "http1", "threads", "server", "route", "filter", "upstream")),
            Map.entry("config", Set.of("http", "route", "filter", "upstream", "threads")),
            Map.entry("observe", Set.of("proxy", "server", "upstream", "http", "route", "threads")),
            Map.entry("lab.backend", Set.of("server", "http", "http1", "threads")),
            Map.entry("lab.load", Set.of("http", "http1", "threads")),
            Map.entry("lab.bench", Set.of("lab.load", "threads")),
            Map.entry("cli", Set.of("*")));

    /** Third-party libraries only the edges may use. */
    private static final Map<String, Set<String>> LIBRARIES = Map.of(
            "com.fasterxml.jackson", Set.of("config", "observe", "lab.bench", "cli"),
            "picocli", Set.of("cli"),
            "io.micrometer", Set.of("observe", "cli"),
            "org.HdrHistogram", Set.of("lab.load", "lab.bench", "observe", "cli"));

    private static final Pattern REF = Pattern.compile("\\bio\\.loomgate\\.([a-z0-9]+(?:\\.[a-z0-9]+)?)");

    @Test
    void everyPackageUsesOnlyWhatItMay() throws IOException {
        List<String> violations = new ArrayList<>();
        try (Stream<Path> files = Files.walk(MAIN)) {
            for (Path file : files.filter(p -> p.toString().endsWith(".java")).toList()) {
                String pkg = packageOf(file);
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
            }
        }
        assertThat(violations).isEmpty();
    }

    @Test
    void theTableFailsOnAForbiddenImport() {
        // The scanner itself must see a violation: a 'server' file naming 'proxy'.
        Matcher m = REF.matcher("import io.loomgate.proxy.ProxyHandler;");
        assertThat(m.find()).isTrue();
        assertThat(ALLOWED.get("server")).doesNotContain(normalise(m.group(1)));
    }

    private static String packageOf(Path file) {
        Path rel = MAIN.relativize(file.getParent());
        return rel.toString().replace('/', '.');
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
