package io.loomgate.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.ratelimit.HoldOff.Permit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The hold-off after a store failure, on a clock the test steps: pause, one probe, doubling, and the way back. */
class HoldOffTest {
    private static final long MS = 1_000_000L;
    private final AtomicLong now = new AtomicLong(5_000 * MS);
    private final HoldOff holdOff = new HoldOff(now::get);

    @Test
    void afterAFailureRequestsSkipTheStoreThenOneProbesAndAnAnswerEndsIt() {
        assertThat(holdOff.permit()).isEqualTo(Permit.CALL);
        holdOff.failed(Permit.CALL);
        holdOff.failed(Permit.CALL); // a call in flight when the first failed: no longer pause
        assertThat(holdOff.permit()).isEqualTo(Permit.SKIP);
        now.addAndGet(99 * MS);
        assertThat(holdOff.permit()).isEqualTo(Permit.SKIP);
        now.addAndGet(MS);
        assertThat(holdOff.permit()).isEqualTo(Permit.PROBE);
        assertThat(holdOff.permit()).as("one probe at a time").isEqualTo(Permit.SKIP);
        holdOff.failed(Permit.PROBE); // the pause doubles: 200 ms
        now.addAndGet(199 * MS);
        assertThat(holdOff.permit()).isEqualTo(Permit.SKIP);
        now.addAndGet(MS);
        assertThat(holdOff.permit()).isEqualTo(Permit.PROBE);
        holdOff.answered(Permit.PROBE);
        assertThat(holdOff.permit()).isEqualTo(Permit.CALL);
    }

    @Test
    void failedProbesDoubleThePauseUpToOneSecond() {
        holdOff.failed(Permit.CALL);
        long pause = HoldOff.FIRST_PAUSE_NANOS;
        for (int i = 0; i < 8; i++) {
            now.addAndGet(pause);
            assertThat(holdOff.permit()).isEqualTo(Permit.PROBE);
            holdOff.failed(Permit.PROBE);
            pause = Math.min(HoldOff.MAX_PAUSE_NANOS, pause * 2);
            now.addAndGet(pause - 1);
            assertThat(holdOff.permit()).isEqualTo(Permit.SKIP);
            now.addAndGet(-(pause - 1));
        }
        assertThat(pause).isEqualTo(HoldOff.MAX_PAUSE_NANOS);
    }
}
