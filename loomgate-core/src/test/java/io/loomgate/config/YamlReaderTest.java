package io.loomgate.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * {@link YamlReader} reads SnakeYAML's events itself since session 44 (Jackson's YAML parser on top of them
 * initialised {@code BigDecimal}, ~10 ms of the start on JDK 25): every document must read to the same tree, with the
 * same lines and typing of scalars, or fail with the same message, as through Jackson ({@link JacksonYamlReference},
 * the reader as it was).
 */
class YamlReaderTest {
    private static final Map<String, String> ENV = Map.of("HOST", "example.org", "EMPTY", "");

    /** What a reader made of a document: its tree, or its refusal's message. */
    private static String outcome(boolean reference, String yaml) {
        try {
            return String.valueOf(reference ? JacksonYamlReference.read(yaml, "g.yaml", ENV)
                    : YamlReader.read(yaml, "g.yaml", ENV));
        } catch (ConfigException e) {
            return "refused: " + e.getMessage();
        }
    }

    private static void sameAsJackson(String yaml) {
        assertThat(outcome(false, yaml)).as("%s", yaml).isEqualTo(outcome(true, yaml));
    }

    @Test
    void everyYamlFileOfTheRepositoryReadsAsThroughJackson() throws IOException {
        List<Path> files;
        try (Stream<Path> all = Files.walk(Path.of("..").toAbsolutePath().normalize())) {
            files = all.filter(p -> p.toString().endsWith(".yaml") || p.toString().endsWith(".yml"))
                    .filter(p -> !p.toString().contains("/target/") && !p.toString().contains("/.git/"))
                    .toList();
        }
        assertThat(files).as("the repository's YAML files (configs, examples, Spring Cloud Gateway's docs)")
                .hasSizeGreaterThan(50);
        for (Path f : files) {
            sameAsJackson(Files.readString(f));
        }
    }

    @Test
    void scalarsAreTypedAsJacksonTypedThem() {
        for (String v : List.of("", "~", "null", "Null", "NULL", "nUll", "true", "True", "TRUE", "tRue", "false",
                "yes", "Yes", "YES", "no", "NO", "on", "On", "off", "OFF", "y", "n", "Y", "N", "1", "-1", "+1",
                "0x1F", "0o17", "017", "1_000", "1.5", "-.5", "1e3", ".inf", "-.Inf", ".nan", "2026-11-30",
                "12:30:45", "'true'", "\"null\"", "''", "\"\"", "!!str 1", "!!str true", "!!bool y", "!!bool yes",
                "!!bool maybe", "!!bool ''", "!!null ~", "!!null ''", "!!null x", "!!int 12", "!!int ''",
                "!!float 1", "!!binary aGVsbG8=", "!custom x", "! true", "! 12", "&a 1", "&b true",
                "${HOST}", "'${HOST}:80'", "${EMPTY}", "${MISSING:-fallback}", "|\n  a\n  b\n", ">\n  a\n  b\n",
                "a\n  b", "\"a\\tb\"", "[]", "{}", "[1, yes, ~, '']", "{a: 1, b: ~}")) {
            sameAsJackson("key: " + v + "\n");
            sameAsJackson("- " + v + "\n");
        }
    }

    @Test
    void structureLinesAndRefusalsAreAsThroughJackson() {
        for (String yaml : List.of("", "# only a comment\n", "---\n", "---\na: 1\n...\n", "a: 1\n---\nb: 2\n",
                "a: 1\n---\n", "plain\n", "a:\n  b:\n    - c\n    -\n    - d: e\n      f: [1, {g: h}]\n",
                "a: &x 1\nb: *x\n", "a: *undefined\n", "? [a]\n: 1\n", "{[a]: 1}\n", "a: 1\na: 2\n",
                "a: {b: 1, b: 2}\n", "'1': a\n1: b\n", "~: a\n", "\"\": a\n", "a:\n  - b\n - c\n",
                "a: [1, 2\nb: 1\n", "a: 'unterminated\n", "a:\tb\n", "key: ${UNCLOSED\n", "a: b: c\n",
                "!!map {a: 1}\n", "- !!seq [1]\n", "a: |\n  x\n b: 1\n", "%YAML 1.1\n---\na: 1\n", "\ta: 1\n",
                "a: [\n  1,\n  2\n]\nb: |\n  x\n  y\nc: >-\n  z\nd: \"multi\n  line\"\n",
                "a: 1\r\nb:\r\n  - x\r\n", "\uFEFFa: 1\n", "a: \"\\u00e9\\x41\"\nb: é\n", "a: 1 # c\n# d\nb: 2",
                "a: \u0001\n", "? a\n: 1\n", "a: !!set {x, y}\n", "<<: {a: 1}\n")) {
            sameAsJackson(yaml);
        }
    }

    @Test
    void nestingBeyondTheLimitIsRefusedNotAStackOverflow() {
        String deep = "[".repeat(YamlReader.MAX_DEPTH + 1) + "]".repeat(YamlReader.MAX_DEPTH + 1);
        assertThat(outcome(false, deep)).isEqualTo("refused: g.yaml:1: YAML syntax error: mappings and lists "
                + "nested more than 1000 deep");
        String limit = "[".repeat(YamlReader.MAX_DEPTH) + "]".repeat(YamlReader.MAX_DEPTH);
        assertThat(outcome(false, limit)).doesNotStartWith("refused");
    }
}
