package io.loomgate.lab.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordingFile;

/**
 * The {@code jdk.VirtualThreadPinned} events of a JFR recording: how many, and the most frequent stack top. The
 * stack top shown is the first frame outside the JDK's own thread machinery ({@code java.lang.VirtualThread},
 * {@code Thread.sleep}, {@code jdk.internal}), so it names the code that blocked while pinned.
 *
 * <p>A loaded JVM can pin for a moment in its own machinery (a class initialised while a virtual thread waits for
 * it, say), so the events are also counted by whether the blocking method under study is on their stack: that count
 * is the one that says whether the code shown pins.
 *
 * @param count       events in the recording
 * @param fromBlocker events whose stack holds one of the blocking methods named to {@link #read}
 * @param stackTop    the most frequent stack top, or "-" with no events
 * @param reason      the pinned reason the JDK gave (JDK 24+), or "-"
 */
record PinnedEvents(long count, long fromBlocker, String stackTop, String reason) {

    /**
     * @param blockers the blocking methods, as {@code fully.qualified.Type.method}
     */
    static PinnedEvents read(Path recording, Set<String> blockers) throws IOException {
        if (!Files.exists(recording)) {
            return new PinnedEvents(0, 0, "-", "no recording at " + recording);
        }
        Map<String, Long> tops = new LinkedHashMap<>();
        String reason = "-";
        long count = 0;
        long fromBlocker = 0;
        for (RecordedEvent e : RecordingFile.readAllEvents(recording)) {
            if (!e.getEventType().getName().equals("jdk.VirtualThreadPinned")) {
                continue;
            }
            count++;
            if (hasFrame(e, blockers)) {
                fromBlocker++;
            }
            tops.merge(stackTop(e), 1L, Long::sum);
            if (e.hasField("pinnedReason") && e.getString("pinnedReason") != null) {
                reason = e.getString("pinnedReason");
            }
        }
        String top = tops.entrySet().stream().max(Comparator.comparingLong(Map.Entry::getValue))
                .map(Map.Entry::getKey).orElse("-");
        return new PinnedEvents(count, fromBlocker, top, reason);
    }

    private static boolean hasFrame(RecordedEvent e, Set<String> methods) {
        if (e.getStackTrace() == null) {
            return false;
        }
        for (RecordedFrame f : e.getStackTrace().getFrames()) {
            if (methods.contains(f.getMethod().getType().getName() + "." + f.getMethod().getName())) {
                return true;
            }
        }
        return false;
    }

    private static String stackTop(RecordedEvent e) {
        if (e.getStackTrace() == null) {
            return "(no stack trace)";
        }
        for (RecordedFrame f : e.getStackTrace().getFrames()) {
            String type = f.getMethod().getType().getName();
            if (!type.startsWith("java.lang.") && !type.startsWith("jdk.internal.")) {
                return type + "." + f.getMethod().getName() + " line " + f.getLineNumber();
            }
        }
        return "(only JDK frames)";
    }
}
