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
