package io.loomgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The hadolint-style rules of deploy/container/lint-dockerfile.py hold for the Dockerfile (pinned bases, non-root,
 * exec-form entrypoint, health check, ports, heap flags), and the script does catch each kind of breakage.
 */
class DockerfileRulesTest {

    @Test
    void theDockerfilePassesTheRules() throws Exception {
        RepoScript.require(RepoScript.onPath("python3"), "python3 is not installed");
        RepoScript r = lint(RepoRoot.find().resolve("Dockerfile"));
        assertThat(r.output()).isEmpty();
        assertThat(r.exit()).isZero();
    }

    @Test
    void eachBrokenRuleIsReportedWithItsLine(@TempDir Path dir) throws Exception {
        RepoScript.require(RepoScript.onPath("python3"), "python3 is not installed");
        String good = Files.readString(RepoRoot.find().resolve("Dockerfile"));
        Path bad = dir.resolve("Dockerfile");
        Files.writeString(bad, good
                .replace(":12.8-slim", ":latest")
                .replace("USER 10001:10001", "USER root")
                .replace("ENTRYPOINT [\"/opt/loomgate/jre/bin/java\",", "ENTRYPOINT /opt/loomgate/jre/bin/java")
                .replace("\"-XX:+ExitOnOutOfMemoryError\",", "")
                .replace("EXPOSE 8080 9977", "EXPOSE 8080"));
        RepoScript r = lint(bad);
        assertThat(r.exit()).isEqualTo(1);
        assertThat(r.output()).contains("DL3007", "debian:latest").contains("DL3002 the final stage's USER is root")
                .contains("DL3025 ENTRYPOINT is in shell form").contains("LG002 port 9977")
                .contains("LG003 the ENTRYPOINT lacks -XX:+ExitOnOutOfMemoryError");
    }

    private static RepoScript lint(Path dockerfile) throws Exception {
        return RepoScript.run(Duration.ofSeconds(60), Map.of(), List.of("python3",
                RepoRoot.find().resolve("deploy/container/lint-dockerfile.py").toString(), dockerfile.toString()));
    }
}
