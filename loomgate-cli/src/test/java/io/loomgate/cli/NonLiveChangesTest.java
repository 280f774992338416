package io.loomgate.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.config.ConfigException;
import io.loomgate.config.ConfigLoader;
import io.loomgate.config.GatewayConfig;
import io.loomgate.testkit.TestPki;
import java.io.IOException;
import java.lang.reflect.RecordComponent;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Which changes a live reload refuses as "needs a restart", named as the file writes them. */
class NonLiveChangesTest {
    private static final String ROUTES = """
            routes:
              - id: a
                uri: http://127.0.0.1:8081
                predicates: [ "Path=/**" ]
            """;

    /** Certificate files the TLS sections name: the loader reads them. */
    private static Map<String, String> files;

    @BeforeAll
    static void certificates() throws IOException {
        TestPki pki = TestPki.create("Reload keys CA");
        TestPki.Issued a = pki.issue("a", "a.test", "localhost");
        TestPki.Issued b = pki.issue("b", "b.test", "localhost");
        files = Map.of("A_CRT", a.cert().toString(), "A_KEY", a.key().toString(), "B_CRT", b.cert().toString(),
                "B_KEY", b.key().toString(), "CA", pki.caCert().toString());
    }

    private static GatewayConfig parse(String yaml) throws ConfigException {
        return ConfigLoader.parse(yaml, "gateway.yaml", files);
    }

    @Test
    void routesUpstreamSettingsAndLevelsAreLive() throws ConfigException {
        GatewayConfig before = parse("server:\n  port: 8080\n" + ROUTES);
        GatewayConfig after = parse("server:\n  port: 8080\nupstream:\n  max-idle: 3\nlogging:\n  levels:\n"
                + "    io.loomgate: debug\n" + ROUTES.replace("8081", "8082"));
        assertThat(NonLiveChanges.between(before, after)).isEmpty();
        assertThat(NonLiveChanges.liveChanges(before, after)).containsExactly("upstream.* (pool settings)", "routes",
                "logging.levels");
    }

    @Test
    void theListenerThreadModelAdminAndLogFormatNeedARestartEachNamed() throws ConfigException {
        GatewayConfig before = parse("server:\n  port: 8080\n" + ROUTES);
        GatewayConfig after = parse("""
                server:
                  port: 8081
                  threads: platform:50
                  max-connections: 20
                admin:
                  port: 9902
                logging:
                  format: json
                """ + ROUTES);
        assertThat(NonLiveChanges.between(before, after)).containsExactly(
                "server.port (8080 → 8081)",
                "server.max-connections (10000 → 20)",
                "server.threads (virtual → platform:50)",
                "admin.port (9977 → 9902)",
                "logging.format (text → json)");
    }

    @Test
    void theSameFileIsUnchanged() throws ConfigException {
        assertThat(NonLiveChanges.changes(parse(ROUTES), parse(ROUTES)))
                .isEqualTo(new NonLiveChanges.Changes(List.of(), List.of()));
    }

    private static final String SSL = """
            server:
              ssl:
                certificate: ${A_CRT}
                certificate-private-key: ${A_KEY}
            """;

    @Test
    void otherServerCertificateFilesAreLiveAndEveryOtherSslKeyNeedsARestart() throws ConfigException {
        GatewayConfig before = parse(SSL + ROUTES);
        GatewayConfig otherFiles = parse(SSL.replace("A_", "B_") + ROUTES);
        NonLiveChanges.Changes c = NonLiveChanges.changes(before, otherFiles);
        assertThat(c.restart()).isEmpty();
        assertThat(c.live()).singleElement().asString().startsWith("server.ssl certificates");

        GatewayConfig protocols = parse(SSL + "    enabled-protocols: [ TLSv1.3 ]\n" + ROUTES);
        assertThat(NonLiveChanges.between(before, protocols)).containsExactly(
                "server.ssl.enabled-protocols ([TLSv1.3, TLSv1.2] → [TLSv1.3])");
        assertThat(NonLiveChanges.between(parse(ROUTES), before)).containsExactly("server.ssl (none → set)");
        assertThat(NonLiveChanges.between(before, parse(ROUTES))).containsExactly("server.ssl (set → none)");
    }

    @Test
    void upstreamSslAdminSslAndTheRedirectPortNeedARestart() throws ConfigException {
        GatewayConfig before = parse(SSL + ROUTES);
        GatewayConfig after = parse(SSL + "  http-redirect-port: 8079\n" + """
                admin:
                  ssl:
                    certificate: ${B_CRT}
                    certificate-private-key: ${B_KEY}
                upstream:
                  ssl:
                    trust-certificate: ${CA}
                """ + ROUTES);
        assertThat(NonLiveChanges.between(before, after)).extracting(k -> k.substring(0, k.indexOf(" (")))
                .containsExactly("server.http-redirect-port", "admin.ssl", "upstream.ssl");
    }

    @Test
    void aRedisChangeIsNamedWithoutItsValues() throws ConfigException {
        GatewayConfig before = parse("redis:\n  url: redis://:secret@127.0.0.1:6379\n" + ROUTES);
        GatewayConfig after = parse("redis:\n  url: redis://:other@127.0.0.1:6379\n" + ROUTES);
        assertThat(NonLiveChanges.between(before, after)).singleElement().asString().startsWith("redis (")
                .doesNotContain("secret").doesNotContain("other@");
    }

    /**
     * Totality: every component of every configuration record the declarations reach is declared, and nothing is
     * declared that is not a component. A component added to GatewayConfig or to a section record fails here until
     * it is declared live or needing a restart.
     */
    @Test
    void everyComponentOfEveryConfigurationRecordIsDeclared() {
        List<String> problems = new ArrayList<>();
        Deque<Class<?>> toVisit = new ArrayDeque<>(List.of(GatewayConfig.class));
        Set<Class<?>> visited = new HashSet<>();
        while (!toVisit.isEmpty()) {
            Class<?> type = toVisit.pop();
            if (!visited.add(type)) {
                continue;
            }
            Map<String, NonLiveChanges.Declared> declared = NonLiveChanges.DECLARED.get(type);
            if (declared == null) {
                problems.add(type.getName() + ": a section without declarations");
                continue;
            }
            Set<String> names = new LinkedHashSet<>();
            for (RecordComponent c : type.getRecordComponents()) {
                names.add(c.getName());
                NonLiveChanges.Declared d = declared.get(c.getName());
                if (d == null) {
                    problems.add(type.getSimpleName() + "." + c.getName() + ": neither live nor needing a restart");
                } else if (d.reload() == NonLiveChanges.Reload.SECTION) {
                    if (!c.getType().isRecord()) {
                        problems.add(type.getSimpleName() + "." + c.getName() + ": a section must be a record");
                    }
                    toVisit.add(c.getType());
                }
            }
            for (String name : declared.keySet()) {
                if (!names.contains(name)) {
                    problems.add(type.getSimpleName() + "." + name + ": declared but not a component");
                }
            }
        }
        for (Class<?> type : NonLiveChanges.DECLARED.keySet()) {
            if (!visited.contains(type)) {
                problems.add(type.getName() + ": declared but not reached from GatewayConfig");
            }
        }
        assertThat(problems).isEmpty();
    }

    @Test
    void theConfigurationReferenceListsWhatReloadsLiveAsTheCodeDeclaresIt() throws IOException {
        String doc = Files.readString(Path.of("..", "docs", "configuration.md"));
        String table = NonLiveChanges.markdownTable();
        assertThat(doc).as("docs/configuration.md, section 'Live reload', must carry this table:\n%s", table)
                .contains(table);
    }
}
