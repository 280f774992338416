package io.loomgate.lab.backend;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The pinned block really pins a virtual thread on the running JDK (JFR sees jdk.VirtualThreadPinned with our
 * frame on the stack), and the unpinned control does not.
 */
class PinnedBlockTest {

    @Test
    void blockingPinnedIsRecordedAsPinnedAndTheControlIsNot(@TempDir Path dir) throws Exception {
        PinnedBlock block = new PinnedBlock();
        List<RecordedEvent> pinned = recordPinned(dir.resolve("pinned.jfr"), () -> block.blockPinned(50));
        assertThat(pinned).isNotEmpty();
        assertThat(pinned.get(0).getStackTrace().getFrames())
                .anySatisfy(f -> assertThat(f.getMethod().getType().getName()).isEqualTo(PinnedBlock.class.getName()));

        List<RecordedEvent> unpinned = recordPinned(dir.resolve("unpinned.jfr"),
                () -> MockOrigin.sleep(Duration.ofMillis(50)));
        assertThat(unpinned).isEmpty();
    }

    interface Blocking {
        void run() throws Exception;
    }

    private static List<RecordedEvent> recordPinned(Path file, Blocking blocking) throws Exception {
        try (Recording recording = new Recording()) {
            recording.enable("jdk.VirtualThreadPinned").withThreshold(Duration.ofMillis(10)).withStackTrace();
            recording.start();
            Thread t = Thread.ofVirtual().start(() -> {
                try {
                    blocking.run();
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            t.join();
            recording.stop();
            recording.dump(file);
        }
        assertThat(Files.size(file)).isPositive();
        return RecordingFile.readAllEvents(file).stream()
                .filter(e -> e.getEventType().getName().equals("jdk.VirtualThreadPinned")).toList();
    }
}
