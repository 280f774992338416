package io.loomgate.observe;

import com.sun.management.HotSpotDiagnosticMXBean;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A dump of every thread, virtual ones included, through the JDK's own facility (the one behind
 * {@code jcmd <pid> Thread.dump_to_file -format=json}). The JDK writes it only to a new file, so each dump goes to its
 * own temporary directory, is read back and deleted.
 */
final class ThreadDump {
    private ThreadDump() {
    }

    static byte[] take(boolean json) throws IOException {
        HotSpotDiagnosticMXBean bean = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
        Path dir = Files.createTempDirectory("loomgate-threads");
        Path file = dir.resolve(json ? "threads.json" : "threads.txt");
        try {
            bean.dumpThreads(file.toAbsolutePath().toString(), json
                    ? HotSpotDiagnosticMXBean.ThreadDumpFormat.JSON
                    : HotSpotDiagnosticMXBean.ThreadDumpFormat.TEXT_PLAIN);
            return Files.readAllBytes(file);
        } finally {
            Files.deleteIfExists(file);
            Files.deleteIfExists(dir);
        }
    }
}
