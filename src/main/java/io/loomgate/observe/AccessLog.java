package io.loomgate.observe;

import io.loomgate.proxy.ExchangeListener;
import io.loomgate.proxy.ExchangeView;
import io.loomgate.threads.ConnectionExecutors;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One line per finished exchange, written off the request path: the request thread copies the facts into an
 * {@link AccessEntry} and offers it to a bounded queue; one writer thread formats and writes.
 *
 * <p><b>When the queue is full</b> the entry is dropped, never waited for: a slow log disk must not slow requests.
 * Every drop is counted ({@code loomgate_access_log_dropped_total}, {@link #dropped()}) and a warning says how many
 * were lost and why, at most once per {@link #WARN_INTERVAL_MILLIS} ms. A line the sink fails to write counts the
 * same way.
 *
 * <p>Lifecycle: new → {@link #start()} → {@link #close()}, which writes what is queued (for up to 5 s) and stops
 * the writer. Entries offered after close are counted as dropped.
 */
public final class AccessLog implements ExchangeListener, AutoCloseable {
    /** The SLF4J logger lines go to by default; give it its own appender with a bare {@code %msg%n} pattern. */
    public static final String LOGGER = "loomgate.access";
    public static final int DEFAULT_CAPACITY = 65_536;
    static final long WARN_INTERVAL_MILLIS = 10_000;

    private static final Logger LOG = LoggerFactory.getLogger(AccessLog.class);
    private static final int BATCH = 256;

    private final AccessLogFormat format;
    private final BlockingQueue<AccessEntry> queue;
    private final Consumer<String> sink;
    private final AtomicLong dropped = new AtomicLong();
    private final AtomicLong written = new AtomicLong();
    private final AtomicLong lastWarnMillis = new AtomicLong(Long.MIN_VALUE / 2);
    private final AtomicLong droppedAtLastWarn = new AtomicLong();
    private final Counter droppedCounter;
    private volatile boolean closing;
    private volatile Thread writer;

    /** Lines go to the SLF4J logger {@value #LOGGER} at info. */
    public static AccessLog toLogger(AccessLogFormat format, int capacity, MeterRegistry registry) {
        Logger access = LoggerFactory.getLogger(LOGGER);
        return new AccessLog(format, capacity, access::info, registry);
    }

    /**
     * @param sink     receives each formatted line on the writer thread; may block (that is what the queue is for)
     * @param registry where the drop counter and queue gauge go, or null
     */
    public AccessLog(AccessLogFormat format, int capacity, Consumer<String> sink, MeterRegistry registry) {
        this.format = format;
        this.queue = new ArrayBlockingQueue<>(capacity);
        this.sink = sink;
        if (registry != null) {
            droppedCounter = Counter.builder("loomgate.access.log.dropped")
                    .description("Access-log lines dropped because the writer fell behind (queue full)")
                    .register(registry);
            Gauge.builder("loomgate.access.log.queued", queue, BlockingQueue::size)
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
    public void exchangeEnd(ExchangeView exchange) {
        enqueue(exchange);
    }

    @Override
    public void exchangeFailed(ExchangeView exchange) {
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

    @Override
    public void close() throws InterruptedException {
        closing = true;
        Thread w = writer;
        if (w != null) {
            w.join(5_000);
        }
    }

    private void enqueue(ExchangeView exchange) {
        if (closing) {
            lost("the access log is closed");
        } else if (!queue.offer(AccessEntry.of(exchange, System.currentTimeMillis()))) {
            lost("the writer is behind and the queue of " + (queue.remainingCapacity() + queue.size()) + " is full");
        }
    }

    /** Counts a line that will never be written, and says so at most once per warning interval. */
    private void lost(String why) {
        long total = dropped.incrementAndGet();
        if (droppedCounter != null) {
            droppedCounter.increment();
        }
        long now = System.currentTimeMillis();
        long last = lastWarnMillis.get();
        if (now - last >= WARN_INTERVAL_MILLIS && lastWarnMillis.compareAndSet(last, now)) {
            long since = total - droppedAtLastWarn.getAndSet(total);
            LOG.warn("access log dropped {} line(s) since the last warning ({} in all): {}", since, total, why);
        }
    }

    private void drainLoop() {
        List<AccessEntry> batch = new ArrayList<>(BATCH);
        while (true) {
            try {
                AccessEntry first = queue.poll(100, TimeUnit.MILLISECONDS);
                if (first == null) {
                    if (closing) {
                        return;
                    }
                    continue;
                }
                batch.add(first);
                queue.drainTo(batch, BATCH - 1);
                for (AccessEntry e : batch) {
                    write(e);
                }
                batch.clear();
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    private void write(AccessEntry e) {
        try {
            sink.accept(format.format(e));
            written.incrementAndGet();
        } catch (RuntimeException ex) {
            // A broken sink must not kill the writer; the line is lost, counted and reported.
            lost("the sink failed: " + ex);
        }
    }
}
