package io.loomgate.lab.load;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The open model's intended start times: the rate shared across connections, the connections staggered evenly. */
class OpenScheduleTest {

    @Test
    void eachConnectionSendsAtItsShareOfTheRate() {
        // 1000 requests/s over 4 connections: each connection every 4 ms.
        OpenSchedule s = OpenSchedule.forConnection(0, 1000, 4, 0);
        assertThat(s.intervalNanos()).isEqualTo(4_000_000);
        assertThat(s.intendedStart(0)).isZero();
        assertThat(s.intendedStart(10)).isEqualTo(40_000_000);
    }

    @Test
    void connectionsAreStaggeredSoTheWholeLoadIsEven() {
        List<Long> firsts = new ArrayList<>();
        for (int c = 0; c < 4; c++) {
            firsts.add(OpenSchedule.forConnection(1_000, 1000, 4, c).intendedStart(0));
        }
        assertThat(firsts).containsExactly(1_000L, 1_001_000L, 2_001_000L, 3_001_000L);
    }

    @Test
    void theScheduleKeepsItsPaceWhateverHappened() {
        // Intended times do not depend on when earlier requests finished: that is the correction.
        OpenSchedule s = new OpenSchedule(500, 10);
        assertThat(s.intendedStart(1_000_000)).isEqualTo(500 + 10_000_000);
    }

    @Test
    void aZeroIntervalIsRefused() {
        assertThatThrownBy(() -> new OpenSchedule(0, 0)).isInstanceOf(IllegalArgumentException.class);
    }
}
