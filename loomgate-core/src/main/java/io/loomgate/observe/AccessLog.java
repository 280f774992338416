package io.loomgate.observe;

import io.loomgate.proxy.ExchangeListener;
import io.loomgate.proxy.ExchangeView;
import io.loomgate.threads.ConnectionExecutors;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One line per finished exchange, written off the request path: the request thread copies the facts into an
 * {@link AccessEntry} and adds it to a bounded lock-free queue; one writer thread formats what has queued up and hands
 * it to the sink as one batch of newline-separated lines.
 *
 * <p>Why batches and no blocking queue: at tens of thousands of requests a second, a lock shared by every request
 * thread and a wake-up of the writer per line cost more than the formatting. Request threads never wait or signal;
 * the writer drains whatever is there, then naps {@link #IDLE_NAP_NANOS} when the queue is empty. So a line reaches
 * the log within about that long, and the logger sees one event per batch.
 *
 * <p><b>When the queue is full</b> the entry is dropped, never waited for: a slow log disk must not slow requests.
 * Every drop is counted ({@code loomgate_access_log_dropped_total}, {@link #dropped()}) and a warning says how many
 * were lost and why, at most once per {@link #WARN_INTERVAL_MILLIS} ms. Lines the sink fails to write count the same
 * way.
 *
 * <p>Lifecycle: new → {@link #start()} → {@link #close()}, which writes what is queued (for up to 5 s) and stops
 * the writer. Entries offered after close are counted as dropped.
 */
public final class AccessLog implements ExchangeListener.Ending, AutoCloseable {
    /**
     * The SLF4J logger lines go to by default. Each logging event is a batch of lines separated by '\n': give the
     * logger its own appender with a bare {@code %msg%n} pattern, so the file holds exactly one line per request.
     */
    public static final String LOGGER = "loomgate.access";
    public static final int DEFAULT_CAPACITY = 65_536;
    static final long WARN_INTERVAL_MILLIS = 10_000;
    static final long IDLE_NAP_NANOS = 20_000_000;

    private static final Logger LOG = LoggerFactory.getLogger(AccessLog.class);
    private static final int BATCH = 1024;

    private final AccessLogFormat format;
    private final int capacity;
    private final Queue<AccessEntry> queue = new ConcurrentLinkedQueue<>();
    /** Entries in the queue (ConcurrentLinkedQueue.size() walks the list); reserved before the add. */
    private final AtomicInteger queued = new AtomicInteger();
    private final Consumer<String> sink;
    private final AtomicLong dropped = new AtomicLong();
    private final AtomicLong written = new AtomicLong();
    private final AtomicLong lastWarnMillis = new AtomicLong(Long.MIN_VALUE / 2);
    private final AtomicLong droppedAtLastWarn = new AtomicLong();
    private final Counter droppedCounter;
    private volatile boolean closing;
    private volatile Thread writer;

    /** Lines go to the SLF4J logger {@value #LOGGER} at info, a batch per event. */
    public static AccessLog toLogger(AccessLogFormat format, int capacity, MeterRegistry registry) {
        Logger access = LoggerFactory.getLogger(LOGGER);
        return new AccessLog(format, capacity, access::info, registry);
    }

    /**
     * @param sink     receives batches of lines separated by '\n' (no trailing newline) on the writer thread; may
     *                 block (that is what the queue is for)
     * @param registry where the drop counter and queue gauge go, or null
     */
    public AccessLog(AccessLogFormat format, int capacity, Consumer<String> sink, MeterRegistry registry) {
        if (capacity < 1) {
            throw new IllegalArgumentException("access-log queue capacity must be at least 1, got " + capacity);
        }
        this.format = format;
        this.capacity = capacity;
        this.sink = sink;
        if (registry != null) {
            droppedCounter = Counter.builder("loomgate.access.log.dropped")
                    .description("Access-log lines dropped because the writer fell behind (queue full)")
                    .register(registry);
            Gauge.builder("loomgate.access.log.queued", queued, AtomicInteger::get)
                    .description("Access-log lines waiting for the writer").register(registry);
        } else {
            droppedCounter = null;
        }
    }

    public AccessLog start() {
        if (writer != null) {
            throw new IllegalStateException("access log already started");
        }
        writer = ConnectionExecutors.startDaemon("loomgate-access-log", this::drainLoop);
        return this;
    }

    @Override
    public void exchangeDone(ExchangeView exchange) {
        enqueue(exchange);
    }

    /** Lines lost: the queue was full, the sink failed, or they came after close. */
    public long dropped() {
        return dropped.get();
    }

    /** Lines handed to the sink. */
    public long written() {
        return written.get();
    }

    /** Writes out what is queued (waiting up to 5 s for the writer), then stops it. */
    @Override
    public void close() {
        closing = true;
        Thread w = writer;
        if (w != null) {
            LockSupport.unpark(w);
            try {
                w.join(5_000);
            } catch (InterruptedException e) {
                // Shutdown was interrupted: stop waiting and let the caller see the interrupt.
                Thread.currentThread().interrupt();
            }
        }
    }

    private void enqueue(ExchangeView exchange) {
        if (closing) {
            lost(1, "the access log is closed");
            return;
        }
        // Reserve a slot first, so the bound holds however many threads add at once.
        if (queued.incrementAndGet() > capacity) {
            queued.decrementAndGet();
            lost(1, "the writer is behind and the queue of " + capacity + " is full");
            return;
        }
        queue.add(AccessEntry.of(exchange, System.currentTimeMillis()));
    }

    /** Counts lines that will never be written, and says so at most once per warning interval. */
    private void lost(int lines, String why) {
        long total = dropped.addAndGet(lines);
        if (droppedCounter != null) {
            droppedCounter.increment(lines);
        }
        long now = System.currentTimeMillis();
        long last = lastWarnMillis.get();
        if (now - last >= WARN_INTERVAL_MILLIS && lastWarnMillis.compareAndSet(last, now)) {
            long since = total - droppedAtLastWarn.getAndSet(total);
            LOG.warn("access log dropped {} line(s) since the last warning ({} in all): {}", since, total, why);
        }
    }

    private void drainLoop() {
        AccessLogFormat.Batch lines = new AccessLogFormat.Batch(format);
        List<AccessEntry> batch = new ArrayList<>(BATCH);
        while (true) {
            AccessEntry e;
            while (batch.size() < BATCH && (e = queue.poll()) != null) {
                batch.add(e);
            }
            if (!batch.isEmpty()) {
                queued.addAndGet(-batch.size());
                write(lines, batch);
                batch.clear();
            } else if (closing) {
                return;
            } else {
                LockSupport.parkNanos(IDLE_NAP_NANOS);
            }
        }
    }

    private void write(AccessLogFormat.Batch lines, List<AccessEntry> batch) {
        try {
            sink.accept(lines.format(batch));
            written.addAndGet(batch.size());
        } catch (RuntimeException ex) {
            // A broken sink must not kill the writer; the lines are lost, counted and reported.
            lost(batch.size(), "the sink failed: " + ex);
        }
    }
}
