package io.loomgate.server;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Issue 40, stop 40: the accept path's wake-ups with one carrier, the poller blocking on it
 * ({@code loomgate.epoll.block-millis=1}) and, for comparison, handing over (0). Bursts of 200 connections queue in
 * the listening socket's backlog at once (a single edge may stand for many), while every accepted connection is
 * closed by a new virtual thread after timed parks (submissions from outside the carrier, as EpollFuzzTest's
 * helpers make): every burst must be accepted within a generous bound, never left in the accept queue. Written to
 * reproduce EpollFuzzTest's stalls with the blocking poller (connections left unaccepted for 30 s); it did not, on
 * the shared machine at load 2-8 (see bench/results/2026-11-30-s40-wake2/notes.md). A JVM of its own per run,
 * because the scheduler's parallelism is fixed when the JVM starts.
 */
class EpollAcceptBurstTest {
    private static final long GENEROUS_SECONDS = 120;

    @ParameterizedTest
    @ValueSource(ints = {1, 0})
    void burstsOfConnectionsAreAllAcceptedWithOneCarrier(int blockMillis) throws Exception {
        String out = OneCarrierJvm.run(AcceptBurstProbe.class, blockMillis, GENEROUS_SECONDS, "10", "200", "20");
        assertThat(out).contains("every burst drained").contains("blocks on carrier " + (blockMillis > 0));
    }
}
