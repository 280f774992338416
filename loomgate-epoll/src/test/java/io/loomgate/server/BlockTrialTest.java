package io.loomgate.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Isolated;

/**
 * Issue 40, {@code block-millis=auto}: the trials' decision, on a clock and an event count of the test's own (the
 * poller's side with real sockets: {@link EpollPollerAutoTest}). A model of the load: while the loop blocks the poller
 * dispatches {@code blockRate} events a millisecond, while it hands over {@code handOverRate}; the test turns the busy
 * loop's crank every 10 µs and lets the rates change, as a neighbour's arrival on the core would change them.
 */
// Alone (this module runs some classes side by side, loomgate-epoll/pom.xml): it measures the share of time a trial
// spends blocking.
@Isolated
class BlockTrialTest {
    private static final long TURN_NANOS = TimeUnit.MICROSECONDS.toNanos(10);

    /** The load's model and the loop's crank. */
    private static final class Load {
        double blockRate;
        double handOverRate;
        double events;
        long now = 1_000_000_000L;
        final BlockTrial trial = new BlockTrial(() -> (long) events, now);
        long blockingNanos;

        Load(double blockRate, double handOverRate) {
            this.blockRate = blockRate;
            this.handOverRate = handOverRate;
        }

        /** Runs the loop for {@code millis}; the share of that time it blocked. */
        double run(long millis) {
            long end = now + TimeUnit.MILLISECONDS.toNanos(millis);
            long blocked = 0;
            long start = now;
            while (now < end) {
                boolean block = trial.mayBlock(now);
                events += (block ? blockRate : handOverRate) * TURN_NANOS / 1_000_000.0;
                if (block) {
                    blocked += TURN_NANOS;
                }
                now += TURN_NANOS;
            }
            blockingNanos += blocked;
            return (double) blocked / (end - start);
        }
    }

    @Test
    void blockingIsKeptWhileItKeepsUpWithTheHandOver() {
        Load load = new Load(40, 40); // an open rate: the same events either way (a core of its own, or a load that
        // does not wait on the gateway): the cheaper mode
        double share = load.run(5_000);
        assertThat(load.trial.trials()).isGreaterThanOrEqualTo(4);
        assertThat(load.trial.blockingKept()).isEqualTo(load.trial.trials());
        assertThat(load.trial.blocking()).isTrue();
        // only the trials' hand-over windows hand over: 2 of 25 ms in each second
        assertThat(share).isGreaterThan(0.9);
    }

    @Test
    void theLoopHandsOverWhenBlockingFallsBehindAndBlocksAgainWhenItKeepsUpAgain() {
        Load load = new Load(40, 40);
        load.run(2_000);
        assertThat(load.trial.blocking()).isTrue();

        load.blockRate = 20; // a shared core: wake-ups late, half the requests of the hand-over (stops 39-40)
        load.run(3_000);
        assertThat(load.trial.blocking()).as("after trials in which blocking served half").isFalse();
        double share = load.run(5_000);
        // only the trials' blocking windows block: 2 of 25 ms in each second
        assertThat(share).as("time spent blocking while it loses").isLessThan(0.1);
        assertThat(load.trial.lastRatio()).isCloseTo(0.5, org.assertj.core.data.Offset.offset(0.1));

        load.blockRate = 40; // the neighbour gone: the smoothed ratio climbs back past 0.95 within ten trials
        load.run(12_000);
        assertThat(load.trial.blocking()).as("after trials in which blocking kept up again").isTrue();
    }

    @Test
    void aSmallLossWithinTheMarginKeepsBlockingAndALargerOneDoesNot() {
        Load near = new Load(39, 40); // 97.5%: within the 5% margin
        near.run(3_000);
        assertThat(near.trial.blocking()).isTrue();
        Load behind = new Load(36, 40); // 90%
        behind.run(3_000);
        assertThat(behind.trial.blocking()).isFalse();
    }

    @Test
    void oneNoisyTrialDoesNotTurnTheDecision() {
        Load load = new Load(40, 40);
        load.run(3_000); // three trials at 1
        load.blockRate = 34; // one trial at 0.85: smoothed 0.96, still above the mark
        load.run(1_000);
        assertThat(load.trial.blocking()).isTrue();
        load.blockRate = 40;
        load.run(1_000);
        assertThat(load.trial.blocking()).isTrue();
    }

    @Test
    void anIdleGatewayLeavesTheDecisionAsItWas() {
        Load load = new Load(0.5, 0.5); // fewer than BlockTrial.MIN_EVENTS in a trial
        load.run(3_500);
        assertThat(load.trial.trials()).isGreaterThanOrEqualTo(2);
        assertThat(load.trial.blocking()).isTrue();
        assertThat(load.trial.lastRatio()).isNaN();

        load.blockRate = 20;
        load.handOverRate = 40;
        load.run(2_000);
        assertThat(load.trial.blocking()).isFalse();
        assertThat(load.trial.lastRatio()).isLessThan(0.95);
        load.blockRate = 0.5;
        load.handOverRate = 0.5; // idle again: no trial says anything, so it stays handing over
        load.run(3_000);
        assertThat(load.trial.blocking()).isFalse();
    }
}
