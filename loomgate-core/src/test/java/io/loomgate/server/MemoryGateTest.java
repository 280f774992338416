package io.loomgate.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.testkit.ManualClock;
import io.loomgate.threads.ConnectionExecutors;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The memory gate closes when live data in the old generation after a full collection nears its size and reopens
 * well below it; when the old generation's use passes its mark it asks for a full collection, so it judges before the
 * heap is full; while shut it looks again by itself and asks for a full collection when none comes, so an idle
 * gateway does not stay shut on garbage.
 */
class MemoryGateTest {
    private static final long MAX = 1000;
    /** The recheck thread's own period: long, so these tests drive {@link MemoryGate#recheck()} by hand. */
    private static final Duration BY_HAND = Duration.ofHours(1);

    /** An old generation of {@link #MAX} bytes whose use the test sets and whose collections it answers. */
    private static final class Old implements OldGeneration {
        volatile long used;
        /** What a full collection finds live; -1 for a JVM that declines to collect (-XX:+DisableExplicitGC). */
        volatile long live = -1;
        final AtomicInteger collections = new AtomicInteger();
        /** The mark the gate set last. */
        volatile long mark;
        MemoryGate gate;

        @Override
        public long used() {
            return used;
        }

        @Override
        public long max() {
            return MAX;
        }

        @Override
        public void collect() {
            collections.incrementAndGet();
            if (live >= 0) {
                used = live;
                gate.afterFullCollection(live);
            }
        }

        @Override
        public void markAt(long usedBytes) {
            mark = usedBytes;
        }
    }

    private static MemoryGate gate(Old old, ManualClock clock, Duration recheck) {
        old.gate = new MemoryGate(old, clock, recheck, Duration.ofSeconds(2), Duration.ofSeconds(16));
        return old.gate;
    }

    @Test
    void closesAbovePauseMarkAndReopensOnlyBelowResumeMark() {
        MemoryGate gate = gate(new Old(), new ManualClock(), BY_HAND);
        assertThat(gate.afterFullCollection(800)).isFalse();
        assertThat(gate.afterFullCollection(860)).as("a truly full old generation shuts it").isTrue();
        assertThat(gate.isFull()).isTrue();
        assertThat(gate.afterFullCollection(750)).as("between the marks: stays closed").isTrue();
        assertThat(gate.afterFullCollection(690)).isFalse();
        assertThat(gate.afterFullCollection(800)).as("between the marks: stays open").isFalse();
    }

    @Test
    void pastTheMarkItAsksForAFullCollectionAndShutsOnALiveSetAboveThePauseMark() {
        Old old = new Old();
        MemoryGate gate = gate(old, new ManualClock(), BY_HAND);
        assertThat(old.mark).as("before any full collection: the pause mark").isEqualTo(850);
        old.used = 870;
        old.live = 860;
        gate.pastMark();
        assertThat(old.collections).hasValue(1);
        assertThat(gate.isFull()).as("judged with 14% of the old generation still free").isTrue();
        old.used = 990;
        gate.pastMark();
        assertThat(old.collections).as("shut: the recheck decides when to collect").hasValue(1);
    }

    @Test
    void promotedGarbagePastTheMarkIsCollectedAndLeavesItOpen() {
        Old old = new Old();
        MemoryGate gate = gate(old, new ManualClock(), BY_HAND);
        old.used = 870;
        old.live = 300;
        gate.pastMark();
        assertThat(old.collections).hasValue(1);
        assertThat(gate.isFull()).isFalse();
        assertThat(old.mark).as("halfway from 300 to 1000 is under the pause mark").isEqualTo(850);
        old.used = 700; // the JVM collected between the signal and the gate's look
        gate.pastMark();
        assertThat(old.collections).hasValue(1);
    }

    @Test
    void aLiveSetJustUnderThePauseMarkMovesTheMarkHalfwayToTheMaximum() {
        Old old = new Old();
        MemoryGate gate = gate(old, new ManualClock(), BY_HAND);
        old.used = 870;
        old.live = 840;
        gate.pastMark();
        assertThat(gate.isFull()).isFalse();
        // garbage promoted past 850 must not cost a full collection per young collection: the next look at 920
        assertThat(old.mark).isEqualTo(920);
        old.live = 900;
        old.used = 930;
        gate.pastMark();
        assertThat(old.collections).hasValue(2);
        assertThat(gate.isFull()).isTrue();
        assertThat(old.mark).isEqualTo(950);
        gate.afterFullCollection(100);
        assertThat(old.mark).as("back to the pause mark after a collection that finds little live").isEqualTo(850);
    }

    @Test
    void whileShutItOpensWithoutACollectionOnceTheOldGenerationIsLowEvenWithItsGarbage() {
        Old old = new Old();
        MemoryGate gate = gate(old, new ManualClock(), BY_HAND);
        old.used = 900;
        gate.afterFullCollection(900);
        old.used = 750; // between the marks: whether that is live, only a collection says
        gate.recheck();
        assertThat(gate.isFull()).isTrue();
        old.used = 600;
        gate.recheck();
        assertThat(gate.isFull()).isFalse();
        assertThat(old.collections).as("no collection needed").hasValue(0);
    }

    @Test
    void whileShutWithNoCollectionItAsksForOneAfterTheBoundAndOpensOnWhatIsLive() {
        Old old = new Old();
        ManualClock clock = new ManualClock();
        MemoryGate gate = gate(old, clock, BY_HAND);
        old.used = 900;
        gate.afterFullCollection(900);
        old.used = 980; // garbage since, and nothing collects it: the gateway is idle
        old.live = 100;
        clock.advance(Duration.ofMillis(1900));
        gate.recheck();
        assertThat(old.collections).as("not before the bound").hasValue(0);
        clock.advance(Duration.ofMillis(100));
        gate.recheck();
        assertThat(old.collections).hasValue(1);
        assertThat(gate.isFull()).isFalse();
    }

    @Test
    void aHeapThatStaysFullOfLiveDataKeepsItShutAndIsCollectedLessAndLessOften() {
        Old old = new Old();
        ManualClock clock = new ManualClock();
        MemoryGate gate = gate(old, clock, BY_HAND);
        old.used = 900;
        old.live = 900;
        gate.afterFullCollection(900);
        StringBuilder collectedAt = new StringBuilder();
        for (int second = 1; second <= 60; second++) {
            clock.advance(Duration.ofSeconds(1));
            int before = old.collections.get();
            gate.recheck();
            if (old.collections.get() > before) {
                collectedAt.append(second).append(' ');
            }
            assertThat(gate.isFull()).isTrue();
        }
        // waits of 2, 4, 8, then 16 s (the test's longest)
        assertThat(collectedAt.toString().trim()).isEqualTo("2 6 14 30 46");
    }

    @Test
    void theJvmsOwnFullCollectionsPutOffTheOneItWouldAskFor() {
        Old old = new Old();
        ManualClock clock = new ManualClock();
        MemoryGate gate = gate(old, clock, BY_HAND);
        old.used = 900;
        gate.afterFullCollection(900);
        for (int i = 0; i < 10; i++) { // under load: the JVM collects, the heap stays full
            clock.advance(Duration.ofSeconds(1));
            gate.afterFullCollection(880);
            gate.recheck();
        }
        assertThat(old.collections).hasValue(0);
        old.live = 100; // the load stops
        clock.advance(Duration.ofSeconds(2));
        gate.recheck();
        assertThat(old.collections).as("the first wait, not doubled by the JVM's collections").hasValue(1);
        assertThat(gate.isFull()).isFalse();
    }

    @Test
    void theRecheckThreadReopensAShutGateByItself() throws Exception {
        Old old = new Old();
        old.gate = new MemoryGate(old, io.loomgate.threads.NanoClock.SYSTEM, Duration.ofMillis(10),
                Duration.ofMillis(50), Duration.ofMillis(50));
        old.used = 900;
        old.live = 50;
        old.gate.afterFullCollection(900);
        Thread waiter = ConnectionExecutors.startVirtual("gate-waiter", () -> old.gate.awaitRoom(() -> false));
        assertThat(waiter.join(Duration.ofSeconds(30))).as("reopened with no collection from outside").isTrue();
        assertThat(old.collections).hasValueGreaterThanOrEqualTo(1);
    }

    @Test
    void onlyWholeHeapCollectionsAreFull() {
        // names, pools and end actions as JDK 25 reports them (-XX:+UseSerialGC, Parallel, G1, ZGC)
        var serial = new OldGeneration.JvmOldGeneration(List.of(),
                Set.of("Eden Space", "Survivor Space", "Tenured Gen"));
        assertThat(serial.isFull("Copy", Set.of("Eden Space", "Survivor Space"), "end of minor GC")).isFalse();
        assertThat(serial.isFull("MarkSweepCompact", Set.of("Eden Space", "Survivor Space", "Tenured Gen"),
                "end of major GC")).isTrue();
        Set<String> g1Pools = Set.of("G1 Eden Space", "G1 Survivor Space", "G1 Old Gen");
        var g1 = new OldGeneration.JvmOldGeneration(List.of(), g1Pools);
        assertThat(g1.isFull("G1 Young Generation", g1Pools, "end of minor GC")).isFalse();
        assertThat(g1.isFull("G1 Concurrent GC", Set.of("G1 Old Gen"), "end of concurrent GC")).isFalse();
        assertThat(g1.isFull("G1 Old Generation", g1Pools, "end of major GC")).isTrue();
        Set<String> zPools = Set.of("ZGC Young Generation", "ZGC Old Generation");
        var z = new OldGeneration.JvmOldGeneration(List.of(), zPools);
        assertThat(z.isFull("ZGC Minor Cycles", zPools, "end of GC cycle")).isFalse();
        assertThat(z.isFull("ZGC Major Pauses", zPools, "end of GC pause")).isFalse();
        assertThat(z.isFull("ZGC Major Cycles", zPools, "end of GC cycle")).isTrue();
    }

    @Test
    void awaitRoomReturnsWhenTheGateOpensOrTheListenerStops() throws Exception {
        Old old = new Old();
        MemoryGate gate = gate(old, new ManualClock(), BY_HAND);
        gate.awaitRoom(() -> false); // open: returns at once
        old.used = 900;
        gate.afterFullCollection(900);
        gate.awaitRoom(() -> true); // stopping: returns although full
        Thread waiter = ConnectionExecutors.startVirtual("gate-waiter", () -> gate.awaitRoom(() -> false));
        assertThat(waiter.join(Duration.ofMillis(100))).as("waits while full").isFalse();
        gate.afterFullCollection(100);
        assertThat(waiter.join(Duration.ofSeconds(10))).isTrue();
    }
}
