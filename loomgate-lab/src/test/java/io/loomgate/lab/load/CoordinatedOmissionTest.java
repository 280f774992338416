package io.loomgate.lab.load;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The open model charges a server stall to every request that should have been sent during it (latency from the
 * intended start), while the uncorrected view charges it to the one request that was in flight.
 */
class CoordinatedOmissionTest {

    @Test
    void correctedPercentilesIncludeTheStallAndUncorrectedOnesDoNot() throws Exception {
        AtomicLong firstRequest = new AtomicLong();
        // One connection at 100 requests/s for 3 s; the server stalls for 1 s once, on the first request that
        // arrives 0.5 s after the first one. About 100 requests are due during the stall: they wait for it.
        ScriptedOrigin.Script stallOnce = new ScriptedOrigin.Script() {
            private boolean stalled;

            @Override
            public ScriptedOrigin.Reply reply(int n) {
                long now = System.nanoTime();
                if (n == 0) {
                    firstRequest.set(now);
                }
                if (!stalled && now - firstRequest.get() > 500_000_000L) {
                    stalled = true;
                    return new ScriptedOrigin.Respond(200, 1000, false);
                }
                return ScriptedOrigin.ok();
            }
        };
        try (ScriptedOrigin origin = new ScriptedOrigin(stallOnce)) {
            LoadSpec spec = new LoadSpec(URI.create(origin.url("/")), "GET", List.of(), new byte[0], 1,
                    Duration.ofSeconds(3), 0, Duration.ZERO, 100, Duration.ofSeconds(5));
            LoadResult r = LoadGenerator.run(spec, p -> { });

            assertThat(r.errors().total()).isZero();
            assertThat(r.requests()).isBetween(250L, 310L);
            // The stalled request itself took about a second either way.
            assertThat(r.uncorrectedLatencyMs().max()).isGreaterThanOrEqualTo(950);
            assertThat(r.latencyMs().max()).isGreaterThanOrEqualTo(950);
            // A third of the requests were due during the stall, waiting from 1 s down to 0: p90 is deep in it.
            assertThat(r.latencyMs().p90()).isGreaterThan(300);
            // Sent when they could be, they all look fast.
            assertThat(r.uncorrectedLatencyMs().p90()).isLessThan(100);
        }
    }
}
