package io.loomgate.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.config.ConfigLoader;
import io.loomgate.config.GatewayConfig;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code loomgate import-scg application.yml > gateway.yaml}, through the command line as users run it. */
class ImportScgCommandTest {

    @Test
    void importsTheScgTestFileToALoadableNativeOne(@TempDir Path dir) throws Exception {
        Path scg = dir.resolve("application.yml");
        try (var in = getClass().getResourceAsStream("/scg/application.yml")) {
            Files.write(scg, in.readAllBytes());
        }
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        PrintStream before = System.out;
        int exit;
        try {
            System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
            exit = Main.commandLine().execute("import-scg", scg.toString());
        } finally {
            System.setOut(before);
        }
        assertThat(exit).isZero();
        String out = captured.toString(StandardCharsets.UTF_8);
        assertThat(out).startsWith("# Loomgate configuration imported from").doesNotContain("spring:")
                .contains("${ORIGIN}").contains("${REDIS_PORT}");
        Path gateway = dir.resolve("gateway.yaml");
        Files.writeString(gateway, out);
        GatewayConfig config = ConfigLoader.parse(Files.readString(gateway), gateway.toString(),
                java.util.Map.of("ORIGIN", "http://127.0.0.1:9", "REDIS_PORT", "6379"));
        assertThat(config.routes()).extracting(r -> r.id()).containsExactly("users", "chocolate", "limited");
        assertThat(config.redis().port()).isEqualTo(6379);
    }

    @Test
    void aFileItCannotReadExitsTwo(@TempDir Path dir) {
        assertThat(Main.commandLine().execute("import-scg", dir.resolve("missing.yml").toString())).isEqualTo(2);
    }
}
