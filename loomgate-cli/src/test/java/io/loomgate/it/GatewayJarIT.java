package io.loomgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.testkit.JarProcess;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.jar.Attributes;
import java.util.jar.JarFile;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import org.junit.jupiter.api.Test;

/**
 * The gateway artifact is the gateway: {@code loomgate-gateway.jar} carries neither the lab nor its database driver,
 * pool and embedded PostgreSQL, and offers only the gateway's commands; {@code loomgate.jar} keeps every command.
 * (ServeIT runs {@code serve} from the gateway jar.)
 */
class GatewayJarIT {
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
