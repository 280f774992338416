package io.loomgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.testkit.FreePorts;
import io.loomgate.testkit.JarProcess;
import io.loomgate.testkit.RunningGateway;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
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
    private static final Pattern README_PORT = Pattern.compile("\\b(8080|8081|8082|9977)\\b");

    static String block(String readme) {
        int marker = readme.indexOf(MARKER);
        assertThat(marker).as("README.md has the quick-start marker").isNotNegative();
        int start = readme.indexOf("```sh\n", marker) + "```sh\n".length();
        int end = readme.indexOf("\n```", start);
        return readme.substring(start, end + 1);
    }

    @Test
    void theYourOwnGatewayBlockWorksWhenPastedIntoAShell() throws Exception {
        String block = block(Files.readString(RepoRoot.find().resolve("README.md"), StandardCharsets.UTF_8));
        // Four free ports instead of the README's, found together (all different: two asked for one after the other
        // can be the same one, and the gateway then found its port taken by an origin). The block binds them by
        // number, so one can be lost to another socket before it does: that, only that ("Address already in use" in
        // the block's output or the gateway's log), is run again on other ports.
        FreePorts.start(4, ports -> {
            run(block, ports);
            return null;
        });
    }

    /** The block with the README's ports replaced by {@code ports}, run in a scratch directory, checked. */
    private static void run(String block, List<Integer> ports) throws Exception {
        Map<String, String> to = Map.of("8080", ports.get(0).toString(), "8081", ports.get(1).toString(),
                "8082", ports.get(2).toString(), "9977", ports.get(3).toString());
        // In one pass, whole numbers only: a free port such as 38081 must not be rewritten by the next replacement.
        String script = README_PORT.matcher(block).replaceAll(m -> to.get(m.group()));
        String admin = to.get("9977");
        script = script.replace("serve --config gateway.yaml", String.join(" ", JarProcess.onTransportUnderTest(
                List.of("serve", "--config", "gateway.yaml", "--admin-port", admin))));
        Path dir = Files.createTempDirectory("quick-start");
        Path loomgate = dir.resolve("loomgate");
        Files.writeString(loomgate, "#!/usr/bin/env bash\nexec '" + ProcessHandle.current().info().command()
                .orElse("java") + "' -jar '" + JarProcess.jar().toAbsolutePath() + "' \"$@\"\n");
        Files.setPosixFilePermissions(loomgate, PosixFilePermissions.fromString("rwxr-xr-x"));
        Path out = dir.resolve("output.txt");
        Path gatewayLog = dir.resolve("gateway.log");
        Process p = new ProcessBuilder("bash", "-c", script).directory(dir.toFile()).redirectErrorStream(true)
                .redirectOutput(out.toFile()).start();
        // The block waits for its origins and the gateway without a deadline of its own: a port lost before its bind
        // ends the wait here at once instead of after 180 s.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(180);
        while (!p.waitFor(100, TimeUnit.MILLISECONDS) && System.nanoTime() - deadline < 0
                && !FreePorts.saysLostBind(read(out) + read(gatewayLog))) {
            // polled every 100 ms by waitFor
        }
        boolean ended = !p.isAlive();
        p.descendants().forEach(ProcessHandle::destroyForcibly); // a failed run must not leave origins behind
        p.destroyForcibly();
        String output = read(out);
        assertThat(ended).as("the block ended within 180 s; output:%n%s%ngateway.log:%n%s", output, read(gatewayLog))
                .isTrue();
        assertThat(output).contains("Hello World!\n")
                .contains("\nhi\n") // a curl's answer whole: the gateway's access log goes to gateway.log, not between
                .contains("\"POST /users/echo HTTP/1.1\" 200 2 ")
                .contains("\"Path=/users/**\"").contains("\"StripPrefix=1\"")
                .doesNotContain("PathPredicate[")
                .contains("gateway exit 0");
        String asked = System.getProperty(RunningGateway.TRANSPORT_PROPERTY, "");
        if (!asked.isBlank()) { // the block's gateway ran on the transport the build asked for (the jar's ITs do)
            assertThat(read(gatewayLog)).contains("transport " + asked.trim() + ")");
        }
    }

    private static String read(Path file) throws java.io.IOException {
        return Files.exists(file) ? Files.readString(file, StandardCharsets.UTF_8) : "";
    }
}
