package io.loomgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.testkit.JarProcess;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * deploy/kubernetes renders with kubectl kustomize (kustomize built with Go where there is no kubectl), its gateway.yaml passes `loomgate validate`, and every object
 * passes kubeconform -strict against the Kubernetes schemas (deploy/kubernetes/validate.sh); a misspelt field fails.
 */
class KubernetesManifestsIT {
    private static final Path GO = Path.of("/usr/local/go/bin/go");

    @Test
    void theManifestsRenderAndPassStrictSchemaValidation() throws Exception {
        requireTools();
        RepoScript r = validate(Map.of("LOOMGATE_JAR", JarProcess.jar().toString(),
                "JAVA", JarProcess.javaBinary()));
        assertThat(r.exit()).as(r.output()).isZero();
        assertThat(r.output()).contains("valid, 2 routes")
                .contains("7 resources found in 1 file - Valid: 7, Invalid: 0, Errors: 0");
    }

    @Test
    void aMisspeltFieldIsRefused(@TempDir Path dir) throws Exception {
        requireTools();
        Path copy = dir.resolve("kubernetes");
        Path source = RepoRoot.find().resolve("deploy/kubernetes");
        Files.createDirectories(copy.resolve("tools"));
        try (var files = Files.list(source)) {
            for (Path f : files.filter(Files::isRegularFile).toList()) {
                Files.copy(f, copy.resolve(f.getFileName()));
            }
        }
        Files.copy(source.resolve("tools/openapi2jsonschema.py"), copy.resolve("tools/openapi2jsonschema.py"));
        Path deployment = copy.resolve("deployment.yaml");
        Files.writeString(deployment, Files.readString(deployment).replace("readOnlyRootFilesystem",
                "readOnlyRootFileSystem"));
        RepoScript r = RepoScript.run(Duration.ofMinutes(5), env(Map.of()),
                List.of("bash", copy.resolve("validate.sh").toString()));
        assertThat(r.exit()).isEqualTo(1);
        assertThat(r.output()).contains("Deployment loomgate is invalid").contains("readOnlyRootFileSystem");
    }

    /**
     * An operator picks the transport in the Deployment's environment ({@code LOOMGATE_TRANSPORT}), not by editing
     * the ConfigMap: the Deployment declares it, and the ConfigMap's gateway.yaml maps it to {@code server.transport}
     * as the image's own config does, so {@code loomgate validate} of that file takes each value from the
     * environment: epoll and auto are valid (this build runs on Linux, Java 25), a word that is none of the three
     * is refused naming the key, and without the variable the file is valid on the default.
     */
    @Test
    void theDeploymentsEnvironmentPicksTheTransport() throws Exception {
        Path root = RepoRoot.find();
        assertThat(Files.readString(root.resolve("deploy/kubernetes/deployment.yaml")))
                .containsPattern("- name: LOOMGATE_TRANSPORT\n\s+value: jdk\n");
        Path yaml = root.resolve("deploy/kubernetes/gateway.yaml");
        assertThat(Files.readString(yaml)).contains("transport: ${LOOMGATE_TRANSPORT:jdk}");
        for (String transport : List.of("epoll", "auto", "jdk", "")) {
            RepoScript ok = validateConfig(yaml, transport);
            assertThat(ok.exit()).as("LOOMGATE_TRANSPORT=%s: %s", transport, ok.output()).isZero();
        }
        RepoScript refused = validateConfig(yaml, "sideways");
        assertThat(refused.exit()).as(refused.output()).isEqualTo(2);
        assertThat(refused.output()).contains("transport").contains("sideways");
    }

    /** {@code loomgate validate --config yaml} with {@code LOOMGATE_TRANSPORT} set (unset when empty). */
    private static RepoScript validateConfig(Path yaml, String transport) throws Exception {
        List<String> cmd = new java.util.ArrayList<>(List.of("env", "-u", "LOOMGATE_TRANSPORT"));
        if (!transport.isEmpty()) {
            cmd.add("LOOMGATE_TRANSPORT=" + transport);
        }
        cmd.addAll(List.of(JarProcess.javaBinary(), "-jar", JarProcess.jar().toString(), "validate", "--config",
                yaml.toString()));
        // The token comes from a Secret in the pod; any 32 characters stand in for it here.
        return RepoScript.run(Duration.ofMinutes(2),
                Map.of("LOOMGATE_ADMIN_TOKEN", "validate-only-0123456789abcdef0123"), cmd);
    }

    private static RepoScript validate(Map<String, String> extra) throws Exception {
        return RepoScript.run(Duration.ofMinutes(5), env(extra),
                List.of("bash", RepoRoot.find().resolve("deploy/kubernetes/validate.sh").toString()));
    }

    private static Map<String, String> env(Map<String, String> extra) {
        Map<String, String> env = new java.util.HashMap<>(extra);
        env.put("GO", GO.toString());
        return env;
    }

    private static void requireTools() {
        RepoScript.require(Files.isExecutable(GO), "Go is not installed at " + GO + " (kubeconform is a Go tool)");
        RepoScript.require(RepoScript.onPath("python3"), "python3 is not installed");
    }
}
