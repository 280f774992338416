package io.loomgate.lab.load;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Counting requests: how the measured requests are shared out among a run's connections. */
class LoadRunTicketsTest {

    private static LoadRun counted(int connections, long requests) {
        LoadSpec spec = new LoadSpec(URI.create("http://127.0.0.1:1/"), "GET", List.of(), new byte[0], connections,
                null, requests, Duration.ZERO, 0, Duration.ofSeconds(5));
        return new LoadRun(spec, new byte[0], System.nanoTime(), null);
    }

    private static int claimAll(LoadRun run, int index) {
        int claimed = 0;
        while (run.takeTicket(index, claimed == 0)) {
            claimed++;
        }
        return claimed;
    }

    @Test
    void aConnectionThatStartsLastStillCarriesOneMeasuredRequest() {
        LoadRun run = counted(4, 100);
        assertThat(claimAll(run, 0)).as("the first connection takes all it can").isEqualTo(97);
        assertThat(claimAll(run, 1)).isEqualTo(1);
        assertThat(claimAll(run, 2)).isEqualTo(1);
        assertThat(claimAll(run, 3)).as("the last one to start").isEqualTo(1);
    }

    @Test
    void withFewerRequestsThanConnectionsEachRequestGoesToADifferentConnection() {
        LoadRun run = counted(4, 2);
        assertThat(claimAll(run, 3)).isZero();
        assertThat(claimAll(run, 1)).isEqualTo(1);
        assertThat(claimAll(run, 0)).isEqualTo(1);
        assertThat(claimAll(run, 2)).isZero();
    }

    @Test
    void runningForADurationNeedsNoTicket() {
        LoadSpec spec = new LoadSpec(URI.create("http://127.0.0.1:1/"), "GET", List.of(), new byte[0], 2,
                Duration.ofSeconds(1), 0, Duration.ZERO, 0, Duration.ofSeconds(5));
        LoadRun run = new LoadRun(spec, new byte[0], System.nanoTime(), null);
        for (int i = 0; i < 1000; i++) {
            assertThat(run.takeTicket(0, i == 0)).isTrue();
        }
    }
}
