package io.loomgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.testkit.JarProcess;
import io.loomgate.testkit.RunningGateway;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The README's "Your own gateway" block, pasted into bash as a reader would (issue 38 part 4), so it cannot rot: the
 * block is taken from README.md as written, run in a scratch directory where {@code ./loomgate} is the packaged jar,
 * on free ports (the README's 8080, 8081, 8082 and 9977 may be taken on a shared machine), under a deadline. Each
 * curl must print the answer its comment promises, and the gateway must drain and exit 0. The block sends the gateway's
 * output to gateway.log: on the shared terminal its access-log line once landed between curl's body and the newline
 * curl writes after it ("hi127.0.0.1 - - ..."), for a reader as for this test (CI, stop 46).
 */
class QuickStartReadmeIT {
    static final String MARKER = "<!-- quick-start: QuickStartReadmeIT runs this block -->";

    static String block(String readme) {
        int marker = readme.indexOf(MARKER);
        assertThat(marker).as("README.md has the quick-start marker").isNotNegative();
        int start = readme.indexOf("```sh\n", marker) + "```sh\n".length();
        int end = readme.indexOf("\n```", start);
        return readme.substring(start, end + 1);
    }

    @Test
    void theYourOwnGatewayBlockWorksWhenPastedIntoAShell() throws Exception {
        String script = block(Files.readString(RepoRoot.find().resolve("README.md"), StandardCharsets.UTF_8));
        // Four different ports: two free ports asked for one after the other can be the same one (the kernel hands a
        // port closed a moment ago out again), and the gateway then found its port taken by an origin.
        Set<Integer> ports = new LinkedHashSet<>();
        while (ports.size() < 4) {
            ports.add(TlsTerminationTest.freePort());
        }
        Iterator<Integer> free = ports.iterator();
        for (String port : List.of("8080", "8081", "8082")) {
            script = script.replace(port, Integer.toString(free.next()));
        }
        String admin = Integer.toString(free.next());
        script = script.replace("9977", admin)
                .replace("serve --config gateway.yaml", String.join(" ", JarProcess.onTransportUnderTest(
                        List.of("serve", "--config", "gateway.yaml", "--admin-port", admin))));
        Path dir = Files.createTempDirectory("quick-start");
        Path loomgate = dir.resolve("loomgate");
        Files.writeString(loomgate, "#!/usr/bin/env bash\nexec '" + ProcessHandle.current().info().command()
                .orElse("java") + "' -jar '" + JarProcess.jar().toAbsolutePath() + "' \"$@\"\n");
        Files.setPosixFilePermissions(loomgate, PosixFilePermissions.fromString("rwxr-xr-x"));
        Path out = dir.resolve("output.txt");
        Process p = new ProcessBuilder("bash", "-c", script).directory(dir.toFile()).redirectErrorStream(true)
                .redirectOutput(out.toFile()).start();
        boolean ended = p.waitFor(180, TimeUnit.SECONDS);
        p.descendants().forEach(ProcessHandle::destroyForcibly); // a failed run must not leave origins behind
        p.destroyForcibly();
        String output = Files.readString(out, StandardCharsets.UTF_8);
        assertThat(ended).as("the block ended within 180 s; output:%n%s", output).isTrue();
        assertThat(output).contains("Hello World!\n")
                .contains("\nhi\n") // a curl's answer whole: the gateway's access log goes to gateway.log, not between
                .contains("\"POST /users/echo HTTP/1.1\" 200 2 ")
                .contains("\"Path=/users/**\"").contains("\"StripPrefix=1\"")
                .doesNotContain("PathPredicate[")
                .contains("gateway exit 0");
        String asked = System.getProperty(RunningGateway.TRANSPORT_PROPERTY, "");
        if (!asked.isBlank()) { // the block's gateway ran on the transport the build asked for (the jar's ITs do)
            assertThat(Files.readString(dir.resolve("gateway.log"), StandardCharsets.UTF_8))
                    .contains("transport " + asked.trim() + ")");
        }
    }
}
