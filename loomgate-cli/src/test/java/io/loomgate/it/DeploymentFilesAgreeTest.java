package io.loomgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The Dockerfile, deploy/ and their docs agree with what the build makes: every repository script or file they
 * name exists, the Kubernetes image is the one {@code ./loomgate dist} tags ({@code localhost/loomgate:<version>}
 * of the POM), and docs/deployment.md names every {@code --ulimit} the image is run with in ContainerImageIT.
 */
class DeploymentFilesAgreeTest {
    private static final Pattern REPO_PATH = Pattern.compile(
            "(?<![\\w/.-])((?:deploy|bench|docs|examples)/[\\w./-]+\\.(?:sh|py|yaml|md))");
    private static final List<String> FILES = List.of("Dockerfile", "compose.yaml", "loomgate", "docs/deployment.md",
            "deploy/dist.sh", "deploy/container/build-local-bases.sh", "deploy/kubernetes/kustomization.yaml",
            "deploy/kubernetes/validate.sh");

    @Test
    void everyScriptAndFileTheyNameExists() throws IOException {
        Path root = RepoRoot.find();
        Set<String> missing = new LinkedHashSet<>();
        for (String f : FILES) {
            Matcher m = REPO_PATH.matcher(Files.readString(root.resolve(f)));
            while (m.find()) {
                if (!Files.exists(root.resolve(m.group(1)))) {
                    missing.add(f + " names " + m.group(1));
                }
            }
        }
        assertThat(missing).as("paths named that do not exist").isEmpty();
    }

    @Test
    void theKubernetesImageIsTheOneDistTags() throws IOException {
        Path root = RepoRoot.find();
        String kustomization = Files.readString(root.resolve("deploy/kubernetes/kustomization.yaml"));
        assertThat(kustomization).contains("newName: localhost/loomgate\n")
                .contains("newTag: " + projectVersion(root) + "\n");
        assertThat(Files.readString(root.resolve("deploy/dist.sh"))).contains("image=localhost/loomgate:$version");
    }

    @Test
    void theDeploymentDocsNameEveryUlimitTheImageRunsWith() throws IOException {
        Path root = RepoRoot.find();
        String it = Files.readString(root.resolve("loomgate-cli/src/test/java/io/loomgate/it/ContainerImageIT.java"));
        String docs = Files.readString(root.resolve("docs/deployment.md"));
        Matcher m = Pattern.compile("\"--ulimit\", \"(\\w+=[\\d:]+)\"").matcher(it);
        Set<String> ulimits = new LinkedHashSet<>();
        while (m.find()) {
            ulimits.add(m.group(1));
        }
        assertThat(ulimits).as("ContainerImageIT's ulimits").contains("nofile=20000:20000", "nproc=4096:4096");
        for (String u : ulimits) {
            assertThat(docs).as("docs/deployment.md names --ulimit " + u).contains("--ulimit " + u);
        }
    }

    /** The parent POM's own version: the first version element (the XML declaration's attribute is not one). */
    static String projectVersion(Path root) throws IOException {
        Matcher m = Pattern.compile("<version>([^<]+)</version>").matcher(Files.readString(root.resolve("pom.xml")));
        assertThat(m.find()).isTrue();
        return m.group(1);
    }
}
