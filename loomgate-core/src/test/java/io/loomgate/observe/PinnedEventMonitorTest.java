package io.loomgate.observe;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.loomgate.proxy.BoundRoutes;
import io.loomgate.route.RouteTable;
import io.loomgate.testkit.PrometheusText;
import io.loomgate.threads.ConnectionExecutors;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import jdk.jfr.FlightRecorder;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * A real pinned virtual thread on the running JDK, caught by the JFR stream. Since JDK 24 (JEP 491) a virtual thread
 * blocking in {@code synchronized} unmounts, but one that blocks inside a class initializer still cannot: the
 * initializer runs under a VM frame, so the carrier stays held. That is the cause used here.
 */
class PinnedEventMonitorTest {
    private static final Duration DEADLINE = Duration.ofSeconds(20);

    /** Sleeps in its static initializer, pinning whichever virtual thread first touches it. */
    static final class SlowToInitialize {
        static {
            try {
                Thread.sleep(60);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        static void touch() {
        }
    }

    /** Counted down by {@link InitialisedByAPlatformThread}'s initialiser once it runs. */
    private static final CountDownLatch INITIALISING = new CountDownLatch(1);

    /** Counted down by the waiting virtual thread just before it touches the class. */
    private static final CountDownLatch WAITER_STARTED = new CountDownLatch(1);

    /**
     * Initialised by a platform thread, slowly, while a virtual thread waits for it. The slow part starts once the
     * waiter has started (CI run 87, load ~11: a waiter started 80 ms after the initialiser waited for nothing, or
     * under the 20 ms threshold, and no event came), and lasts 200 ms, so a waiter descheduled before its touch still
     * waits past the threshold.
     */
    static final class InitialisedByAPlatformThread {
        static {
            INITIALISING.countDown();
            try {
                WAITER_STARTED.await(10, TimeUnit.SECONDS);
                Thread.sleep(200);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        static void touch() {
        }
    }

    private final ListAppender<ILoggingEvent> lines = new ListAppender<>();
    private PinnedEventMonitor monitor;
    private GatewayMetrics metrics;

    @BeforeEach
    void start() throws Exception {
        lines.start();
        ((Logger) LoggerFactory.getLogger(PinnedEventMonitor.class)).addAppender(lines);
        monitor = new PinnedEventMonitor(Duration.ofMillis(20), 10).start();
        metrics = new GatewayMetrics().bindVirtualThreads(monitor);
    }

    @AfterEach
    void stop() {
        monitor.close();
        metrics.close();
        ((Logger) LoggerFactory.getLogger(PinnedEventMonitor.class)).detachAppender(lines);
    }

    @Test
    void catchesARealPinnedEventAndShowsItAtPinnedAndInTheCounter() throws Exception {
        Thread pinner = ConnectionExecutors.startVirtual("pinned-in-clinit", SlowToInitialize::touch);
        pinner.join();

        awaitTrue(() -> monitor.recent().stream().anyMatch(e -> e.thread().equals("pinned-in-clinit")),
                "a pinned event for the thread 'pinned-in-clinit'");
        PinnedEvent event = monitor.recent().stream()
                .filter(e -> e.thread().equals("pinned-in-clinit")).findFirst().orElseThrow();
        assertThat(event.duration()).isGreaterThanOrEqualTo(Duration.ofMillis(50));
        assertThat(event.frames()).anySatisfy(f -> assertThat(f).contains("SlowToInitialize.<clinit>"));
        assertThat(monitor.pinnedTotal()).isGreaterThanOrEqualTo(1);

        PrometheusText scraped = new PrometheusText(metrics.scrape(null).body());
        assertThat(scraped.value("loomgate_pinned_events_total")).isEqualTo(monitor.pinnedTotal());

        FakeServerExchange x = FakeServerExchange.get("/pinned");
        new AdminHandler(metrics, () -> BoundRoutes.bind(new RouteTable(List.of()), r -> null), null, () -> true)
                .handle(x);
        JsonNode pinned = new ObjectMapper().readTree(x.bodyText());
        assertThat(pinned.get("enabled").asBoolean()).isTrue();
        assertThat(pinned.get("thresholdMillis").asDouble()).isEqualTo(20.0);
        assertThat(pinned.get("total").asLong()).isEqualTo(monitor.pinnedTotal());
        JsonNode first = pinned.get("recent").get(0);
        assertThat(first.get("thread").asText()).isEqualTo("pinned-in-clinit");
        assertThat(first.get("durationMillis").asDouble()).isGreaterThanOrEqualTo(50);
        assertThat(first.get("frames").toString()).contains("SlowToInitialize.<clinit>");

        awaitTrue(() -> logLine("pinned-in-clinit") != null, "a log line for 'pinned-in-clinit'");
        assertThat(logLine("pinned-in-clinit").getLevel()).as("a block inside an initialiser").isEqualTo(Level.WARN);
    }

    /**
     * A virtual thread that waits while another thread runs a class's initialiser is pinned for the wait (JDK 25), once
     * per class: counted like any pinned event, logged at INFO, not WARN (CI run 60: a 45 ms wait for
     * {@code DirectBuffers}' initialiser under a container's first burst failed the "no warning" start check).
     */
    @Test
    void aWaitForAnotherThreadsClassInitialisationIsCountedAndLoggedAtInfo() throws Exception {
        Thread initialiser = Thread.ofPlatform().name("initialiser").start(InitialisedByAPlatformThread::touch);
        INITIALISING.await();
        Thread waiter = ConnectionExecutors.startVirtual("waits-for-clinit", () -> {
            WAITER_STARTED.countDown();
            InitialisedByAPlatformThread.touch();
        });
        waiter.join();
        initialiser.join();

        awaitTrue(() -> monitor.recent().stream().anyMatch(e -> e.thread().equals("waits-for-clinit")),
                "a pinned event for the thread 'waits-for-clinit'");
        PinnedEvent event = monitor.recent().stream()
                .filter(e -> e.thread().equals("waits-for-clinit")).findFirst().orElseThrow();
        assertThat(event.reason()).startsWith("Waited for initialization of ")
                .contains(InitialisedByAPlatformThread.class.getName());
        assertThat(PinnedEventMonitor.waitedForClassInitialization(event)).isTrue();
        assertThat(monitor.pinnedTotal()).isGreaterThanOrEqualTo(1);

        awaitTrue(() -> logLine("waits-for-clinit") != null, "a log line for 'waits-for-clinit'");
        ILoggingEvent line = logLine("waits-for-clinit");
        assertThat(line.getLevel()).isEqualTo(Level.INFO);
        assertThat(line.getFormattedMessage()).contains("another thread initialised a class")
                .contains(InitialisedByAPlatformThread.class.getName()).contains("loomgate_pinned_events_total");
    }

    private ILoggingEvent logLine(String thread) {
        return lines.list.stream().filter(l -> l.getFormattedMessage().contains("'" + thread + "'"))
                .findFirst().orElse(null);
    }

    @Test
    void countsTheGatewaysVirtualThreadsAliveWithoutAJfrEventPerThread() throws Exception {
        // A JFR event per virtual thread was two events per HTTP/2 request (a thread per stream): none is recorded.
        assertThat(FlightRecorder.getFlightRecorder().getRecordings())
                .as("the monitor's stream is a recording").isNotEmpty()
                .allSatisfy(r -> assertThat(r.getSettings())
                        .doesNotContainEntry("jdk.VirtualThreadStart#enabled", "true")
                        .doesNotContainEntry("jdk.VirtualThreadEnd#enabled", "true"));
        int n = 25;
        CountDownLatch release = new CountDownLatch(1);
        long before = monitor.virtualThreadsStarted();
        Thread[] threads = new Thread[n];
        for (int i = 0; i < n; i++) {
            threads[i] = ConnectionExecutors.startVirtual("alive-" + i, () -> {
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
        }
        awaitTrue(() -> monitor.virtualThreadsStarted() >= before + n, n + " virtual thread starts");
        assertThat(new PrometheusText(metrics.scrape(null).body()).value("loomgate_virtual_threads"))
                .isGreaterThanOrEqualTo(n);
        long aliveWithThem = monitor.virtualThreadsAlive();

        release.countDown();
        for (Thread t : threads) {
            t.join();
        }
        awaitTrue(() -> monitor.virtualThreadsAlive() <= aliveWithThem - n, n + " virtual thread ends");
    }

    private static void awaitTrue(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + DEADLINE.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("no " + what + " within " + DEADLINE);
            }
            Thread.sleep(20);
        }
    }
}
