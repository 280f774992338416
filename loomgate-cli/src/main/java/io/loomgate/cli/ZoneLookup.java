package io.loomgate.cli;

import java.time.ZoneId;

/**
 * Finds the JVM's default time zone on a thread of its own as the process starts. Logback's {@code %d} in the log
 * pattern needs it before the first log line, and finding it reads the JDK's time-zone database twice (once for
 * {@code java.util.TimeZone}, once for {@code java.time}'s rules): interpreted work on the main thread's way to the
 * first answer otherwise (docs/architecture.md, "Start-up"). The main thread then finds it done, or waits for the
 * class initialisations under way (the JDK's own locking), and formats log lines exactly as before.
 */
final class ZoneLookup {
    private ZoneLookup() {
    }

    static void begin() {
        Thread.ofPlatform().daemon().name("zone-lookup").start(() -> {
            try {
                ZoneId.systemDefault();
            } catch (RuntimeException e) {
                // A zone the JDK cannot read fails Logback's start on the main thread too, which reports it.
            }
        });
    }
}
