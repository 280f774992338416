package io.loomgate.observe;

import io.loomgate.threads.ConnectionExecutors;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedStackTrace;
import jdk.jfr.consumer.RecordedThread;
import jdk.jfr.consumer.RecordingStream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Watches the JDK's {@code jdk.VirtualThreadPinned} events above a threshold through one JFR {@link RecordingStream}
 * (kept in a bounded ring of recent events, counted, and logged once per distinct stack), and reports the number of
 * the gateway's virtual threads alive, which {@link ConnectionExecutors} counts as it makes them.
 *
 * <p>The stream records no event per virtual thread ({@code jdk.VirtualThreadStart}/{@code End} are off): with a
 * virtual thread per HTTP/2 stream they were two events per request, each with the JFR thread checkpoint its thread
 * needs, and the stream's parsing of them cost about 3% of W8's CPU (docs/performance.md).
 *
 * <p>Lifecycle: new → {@link #start()} (returns once the stream has delivered its first flush, so events from then on
 * are seen) → {@link #close()}. JFR delivers events in batches about once a second, so the pinned count lags by that
 * much; the thread counts do not lag.
 */
public final class PinnedEventMonitor implements AutoCloseable {
    public static final int DEFAULT_CAPACITY = 100;
    /** Distinct stacks logged before the monitor stops logging new ones (the ring and counter go on). */
    static final int MAX_LOGGED_STACKS = 1000;
    static final int MAX_FRAMES = 12;

    private static final Logger LOG = LoggerFactory.getLogger(PinnedEventMonitor.class);
    private static final Duration START_TIMEOUT = Duration.ofSeconds(10);
    private static final String CLASS_INIT_WAIT = "Waited for initialization of ";

    private final Duration threshold;
    private final BoundedRing<PinnedEvent> recent;
    private final AtomicLong pinned = new AtomicLong();
    private final Set<String> loggedStacks = ConcurrentHashMap.newKeySet();
    private final CountDownLatch firstFlush = new CountDownLatch(1);
    private final CountDownLatch recording = new CountDownLatch(1);
    private volatile RecordingStream stream;
    private volatile boolean closing;

    public PinnedEventMonitor(Duration threshold, int capacity) {
        if (threshold.isNegative()) {
            throw new IllegalArgumentException("pinned-event threshold must not be negative, got " + threshold);
        }
        this.threshold = threshold;
        this.recent = new BoundedRing<>(capacity);
    }

    /**
     * Starts the stream on a daemon thread and waits until it delivers its first flush.
     *
     * @throws IllegalStateException if already started, or if the stream did not come up within 10 s
     */
    public PinnedEventMonitor start() throws InterruptedException {
        if (stream != null) {
            throw new IllegalStateException("pinned-event monitor already started");
        }
        RecordingStream s = open();
        stream = s;
        ConnectionExecutors.startDaemon("loomgate-jfr-monitor", s::start);
        if (!firstFlush.await(START_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
            s.close();
            throw new IllegalStateException("the JFR stream delivered nothing within " + START_TIMEOUT);
        }
        return this;
    }

    /**
     * Opens and starts the stream on a daemon thread without waiting for it: JFR takes about half a second to come up,
     * which the gateway spends serving (it starts it once it serves). Pinned events before the stream is up are not seen. A
     * stream that cannot be opened is logged, and the monitor then reports no pinned events (the thread counts do
     * not need it). {@link #awaitRecording} waits for the recording to have its files.
     */
    public PinnedEventMonitor startInBackground() {
        ConnectionExecutors.startDaemon("loomgate-jfr-monitor", () -> {
            try {
                RecordingStream s;
                try {
                    s = open();
                } catch (RuntimeException | LinkageError e) {
                    LOG.warn("pinned-event monitor not started, so no pinned events are reported: {}",
                            e.toString());
                    return;
                }
                stream = s;
                if (closing) {
                    s.close();
                    return;
                }
                s.startAsync(); // the recording and its chunk file exist once this returns; JFR's thread reads it
            } finally {
                recording.countDown();
            }
        });
        return this;
    }

    /**
     * Waits until a {@link #startInBackground background start} has created the recording's files (or given up), or
     * the monitor was closed, at most {@code timeout}; true if it ended in time. JFR shuts the whole JVM down when it cannot create its chunk
     * file, so until then a gateway admits only as many connections as leave descriptors for it.
     */
    public boolean awaitRecording(Duration timeout) throws InterruptedException {
        return recording.await(timeout.toNanos(), TimeUnit.NANOSECONDS);
    }

    private RecordingStream open() {
        RecordingStream s = new RecordingStream();
        s.setMaxAge(Duration.ofMinutes(1));
        s.enable("jdk.VirtualThreadPinned").withThreshold(threshold).withStackTrace();
        s.onEvent("jdk.VirtualThreadPinned", this::onPinned);
        s.onFlush(firstFlush::countDown);
        return s;
    }

    public Duration threshold() {
        return threshold;
    }

    /** Pinned events above the threshold since start. */
    public long pinnedTotal() {
        return pinned.get();
    }

    /** The most recent pinned events, newest first. */
    public List<PinnedEvent> recent() {
        return recent.newestFirst();
    }

    /** The gateway's virtual threads alive now: started by {@link ConnectionExecutors} and not yet ended. */
    public long virtualThreadsAlive() {
        return ConnectionExecutors.virtualThreadsAlive();
    }

    /** The gateway's virtual threads started since the JVM started. */
    public long virtualThreadsStarted() {
        return ConnectionExecutors.virtualThreadsStarted();
    }

    @Override
    public void close() {
        closing = true;
        RecordingStream s = stream;
        if (s != null) {
            s.close();
        }
        recording.countDown(); // closed before a background start began: nothing will record, no one waits for it
    }

    private void onPinned(RecordedEvent e) {
        PinnedEvent event = toPinnedEvent(e);
        recent.add(event);
        pinned.incrementAndGet();
        String stack = String.join("\n", event.frames());
        if (loggedStacks.size() < MAX_LOGGED_STACKS && loggedStacks.add(stack)) {
            if (waitedForClassInitialization(event)) {
                // Not a block of this thread's own: the JVM holds the carrier of a virtual thread that waits for
                // another thread to finish a class's initialiser (JDK 25 still pins there). A class is initialised
                // once, so it cannot recur for that class; it is no defect an operator can act on, unlike a block
                // inside an initialiser (logged below, at WARN, for the thread that ran it).
                LOG.info("virtual thread '{}' waited {} ms on carrier '{}' while another thread initialised a class "
                                + "({}); the JVM pins a thread for that wait, once per class; counted in "
                                + "loomgate_pinned_events_total:\n    at {}",
                        event.thread(), event.duration().toMillis(), event.carrier(), event.reason(),
                        String.join("\n    at ", event.frames()));
            } else {
                LOG.warn("virtual thread '{}' was pinned to carrier '{}' for {} ms ({}; blocked in {}); this stack "
                                + "is logged once, later occurrences are counted in loomgate_pinned_events_total:"
                                + "\n    at {}",
                        event.thread(), event.carrier(), event.duration().toMillis(), event.reason(),
                        event.blockingOperation(), String.join("\n    at ", event.frames()));
            }
            if (loggedStacks.size() == MAX_LOGGED_STACKS) {
                LOG.warn("{} distinct pinned stacks logged; new ones are no longer logged, see /pinned",
                        MAX_LOGGED_STACKS);
            }
        }
    }

    /**
     * Whether the event is a wait for another thread's class initialisation: JDK 25's pinned reason reads "Waited for
     * initialization of {class} by another thread".
     */
    static boolean waitedForClassInitialization(PinnedEvent event) {
        return event.reason() != null && event.reason().startsWith(CLASS_INIT_WAIT);
    }

    static PinnedEvent toPinnedEvent(RecordedEvent e) {
        RecordedThread thread = e.getThread();
        return new PinnedEvent(e.getStartTime(), e.getDuration(),
                thread == null ? "" : nonNull(thread.getJavaName()),
                thread == null ? -1 : thread.getJavaThreadId(),
                e.hasField("carrierThread") && e.getThread("carrierThread") != null
                        ? e.getThread("carrierThread").getJavaName() : null,
                e.hasField("pinnedReason") ? e.getString("pinnedReason") : null,
                e.hasField("blockingOperation") ? e.getString("blockingOperation") : null,
                topFrames(e.getStackTrace()));
    }

    /** The innermost frames outside the JDK's virtual-thread plumbing that posted the event. */
    private static List<String> topFrames(RecordedStackTrace trace) {
        List<String> frames = new ArrayList<>();
        if (trace == null) {
            return frames;
        }
        boolean inPlumbing = true;
        boolean cut = trace.isTruncated();
        List<RecordedFrame> all = trace.getFrames();
        for (int i = 0; i < all.size(); i++) {
            RecordedFrame f = all.get(i);
            String type = f.getMethod().getType().getName();
            if (inPlumbing && (type.equals("java.lang.VirtualThread") || type.startsWith("jdk.internal.")
                    || type.equals("java.lang.Thread") || type.equals("java.util.concurrent.locks.LockSupport"))) {
                continue;
            }
            inPlumbing = false;
            frames.add(type + "." + f.getMethod().getName()
                    + (f.getLineNumber() > 0 ? ":" + f.getLineNumber() : ""));
            if (frames.size() == MAX_FRAMES) {
                cut |= i < all.size() - 1;
                break;
            }
        }
        if (cut) {
            frames.add("...");
        }
        return frames;
    }

    private static String nonNull(String s) {
        return s == null ? "" : s;
    }
}
