package io.loomgate.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * A new connection is answered while established keep-alive connections saturate the only carrier (session 26's
 * bench/newconn by hand: JDK 25 starts a virtual thread through the scheduler's external queue, which a carrier
 * looks at only when its own queue is empty, so without {@code StartGate} the new connection's thread waited for as
 * long as the load happened to leave that queue full: 1.4-3.5 s, 0.3-41k other requests, in runs of 20 on a loaded
 * machine). Counted in the clients' requests, against their own rate: on average a new connection must be answered
 * within what the clients are served in {@link #MEAN_WAIT_MILLIS}. With the gate one waits for the gate's patience
 * (10 ms) and the busy connections' last requests; without, the mean of 15 came to 400-2,000 ms' worth.
 */
class NewConnectionUnderLoadTest {
    private static final int CLIENTS = 50;
    private static final int PROBES = 15;
    /** The bound on a new connection's mean wait, in the clients' requests at their own rate (see the class). */
    private static final double MEAN_WAIT_MILLIS = 100;
    private static final Pattern RATE = Pattern.compile("RATE per_ms=([0-9.]+)");
    private static final Pattern PROBE = Pattern.compile("PROBE served=([0-9]+)");

    @Test
    void aNewConnectionIsAnsweredWhileTheOnlyCarrierIsSaturated() throws Exception {
        String out = runChild();
        Matcher rate = RATE.matcher(out);
        assertThat(rate.find()).as("the child's rate line: %s", out).isTrue();
        double perMilli = Double.parseDouble(rate.group(1));
        assertThat(perMilli).as("the clients were served: %s", out).isPositive();
        Matcher probe = PROBE.matcher(out);
        long served = 0;
        int probes = 0;
        while (probe.find()) {
            served += Long.parseLong(probe.group(1));
            probes++;
        }
        assertThat(probes).as("every new connection answered: %s", out).isEqualTo(PROBES);
        double meanWaitMillis = served / perMilli / probes;
        assertThat(meanWaitMillis).as("a new connection's mean wait in the clients' requests, as milliseconds at their"
                + " rate: %s", out).isLessThan(MEAN_WAIT_MILLIS);
    }

    /** The child's output, after asserting that it ended in time and exited 0. */
    private static String runChild() throws Exception {
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        List<String> cmd = List.of(java.toString(), "-cp", System.getProperty("java.class.path"),
                "-Djdk.virtualThreadScheduler.parallelism=1", SaturatedCarrierChild.class.getName(),
                String.valueOf(CLIENTS), String.valueOf(PROBES));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out;
        try (InputStream in = p.getInputStream()) {
            // Generous: 15 probes of up to 60 s each without the gate; with it the child ends in seconds.
            boolean ended = p.waitFor(5, TimeUnit.MINUTES);
            if (!ended) {
                p.destroyForcibly();
            }
            out = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            assertThat(ended).as("the child ended: %s", out).isTrue();
        }
        assertThat(p.exitValue()).as("the child's exit: %s", out).isZero();
        assertThat(out).contains("DONE");
        return out;
    }
}
