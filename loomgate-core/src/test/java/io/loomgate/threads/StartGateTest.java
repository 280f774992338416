package io.loomgate.threads;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The gate's count of pending starts: a start refused by its executor is not left pending (a count that never came
 * back to zero would make every reader step aside for good), and a start that ran is not pending any more.
 * {@code NewConnectionUnderLoadTest} checks what the gate is for, with one carrier.
 */
class StartGateTest {
    @Test
    void aRefusedStartIsNotLeftPending() {
        int before = StartGate.pending();
        assertThatThrownBy(() -> StartGate.execute(task -> {
            throw new RejectedExecutionException("shut down");
        }, () -> { })).isInstanceOf(RejectedExecutionException.class);
        assertThat(StartGate.pending()).isEqualTo(before);
    }

    @Test
    void aStartThatRanIsNotPending() throws Exception {
        CountDownLatch ran = new CountDownLatch(1);
        StartGate.execute(task -> Thread.ofVirtual().start(task), ran::countDown);
        assertThat(ran.await(30, TimeUnit.SECONDS)).isTrue();
        // polled: a start of an earlier test class's listener may still be on its way in this JVM
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (StartGate.pending() != 0 && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        assertThat(StartGate.pending()).isZero();
        StartGate.stepAside(); // nothing pending: returns at once
    }
}
