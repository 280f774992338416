package io.loomgate.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.threads.ConnectionExecutors;
import org.junit.jupiter.api.Test;

/** The memory gate closes when live data after a collection nears the heap's size and reopens well below it. */
class MemoryGateTest {
    private static final long MAX = 1000;

    @Test
    void closesAbovePauseMarkAndReopensOnlyBelowResumeMark() {
        MemoryGate gate = new MemoryGate(MAX);
        assertThat(gate.afterCollection(800)).isFalse();
        assertThat(gate.afterCollection(860)).isTrue();
        assertThat(gate.isFull()).isTrue();
        assertThat(gate.afterCollection(750)).as("between the marks: stays closed").isTrue();
        assertThat(gate.afterCollection(690)).isFalse();
        assertThat(gate.afterCollection(800)).as("between the marks: stays open").isFalse();
    }

    @Test
    void awaitRoomReturnsWhenTheGateOpensOrTheListenerStops() throws Exception {
        MemoryGate gate = new MemoryGate(MAX);
        gate.awaitRoom(() -> false); // open: returns at once
        gate.afterCollection(900);
        gate.awaitRoom(() -> true); // stopping: returns although full
        Thread waiter = ConnectionExecutors.startVirtual("gate-waiter", () -> gate.awaitRoom(() -> false));
        assertThat(waiter.join(java.time.Duration.ofMillis(100))).as("waits while full").isFalse();
        gate.afterCollection(100);
        assertThat(waiter.join(java.time.Duration.ofSeconds(10))).isTrue();
    }
}
