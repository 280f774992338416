package io.loomgate.observe;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * A virtual thread that blocked while pinned to its carrier, as JFR reported it ({@code jdk.VirtualThreadPinned}).
 *
 * @param time              when the pinned block began
 * @param duration          how long the carrier was held
 * @param thread            the virtual thread's name (may be empty: virtual threads are unnamed by default)
 * @param threadId          the virtual thread's id
 * @param carrier           the carrier thread's name, or null when the JDK does not report it (before 24)
 * @param reason            why it could not unmount (JDK 24+, e.g. "Native or VM frame on stack"), or null
 * @param blockingOperation what it blocked in (JDK 24+, e.g. "LockSupport.park"), or null
 * @param frames            the top stack frames, innermost first, JFR's event plumbing left out
 */
public record PinnedEvent(Instant time, Duration duration, String thread, long threadId, String carrier,
                          String reason, String blockingOperation, List<String> frames) {
    public PinnedEvent {
        frames = List.copyOf(frames);
    }
}
