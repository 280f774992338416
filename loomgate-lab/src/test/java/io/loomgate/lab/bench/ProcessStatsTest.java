package io.loomgate.lab.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;
import jdk.jfr.Recording;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

/** /proc readings of a process, and the pinned events read back from a JFR recording. */
class ProcessStatsTest {

    @Test
    @EnabledOnOs(OS.LINUX)
    void readsCpuTimeAndPeakMemoryOfALiveProcess() {
        long self = ProcessHandle.current().pid();
        double before = ProcessStats.cpuSeconds(self);
        long x = 0;
        long end = System.nanoTime() + 200_000_000L;
        while (System.nanoTime() < end) {
            x += System.identityHashCode(new Object());
        }
        assertThat(x).isNotZero();
        assertThat(ProcessStats.cpuSeconds(self)).isGreaterThan(before);
        assertThat(ProcessStats.peakRssMb(self)).isGreaterThan(10);
        assertThat(ProcessStats.resetPeak(self)).isTrue();
        assertThat(ProcessStats.peakRssMb(self)).isGreaterThan(10);
    }

    @Test
    void aGoneProcessReadsAsZero() {
        assertThat(ProcessStats.cpuSeconds(Long.MAX_VALUE)).isZero();
        assertThat(ProcessStats.peakRssMb(Long.MAX_VALUE)).isZero();
    }

    @Test
    void countsPinnedEventsAndNamesTheStackTopOutsideTheJdk(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("pinned.jfr");
        Object monitor = new Object();
        try (Recording recording = new Recording()) {
            recording.enable("jdk.VirtualThreadPinned").withThreshold(Duration.ZERO).withStackTrace();
            recording.start();
            Thread.ofVirtual().start(() -> blockPinned(monitor)).join();
            recording.stop();
            recording.dump(file);
        }
        String blocker = ProcessStatsTest.class.getName() + ".blockPinned";
        PinnedEvents events = PinnedEvents.read(file, Set.of(blocker));
        if (Runtime.version().feature() >= 24) {
            // JEP 491: monitors no longer pin, and nothing else here does.
            assertThat(events.count()).isZero();
            assertThat(events.fromBlocker()).isZero();
            assertThat(events.stackTop()).isEqualTo("-");
        } else {
            assertThat(events.count()).isPositive();
            assertThat(events.fromBlocker()).isEqualTo(events.count());
            assertThat(events.stackTop()).startsWith(blocker);
        }
        assertThat(PinnedEvents.read(dir.resolve("missing.jfr"), Set.of(blocker)).count()).isZero();
    }

    private static void blockPinned(Object monitor) {
        synchronized (monitor) {
            try {
                Thread.sleep(30);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
