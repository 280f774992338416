package io.loomgate.lab.load;

import io.loomgate.http.Headers;
import io.loomgate.http.HttpVersion;
import io.loomgate.http.RequestHead;
import io.loomgate.http1.HttpOutput;
import io.loomgate.threads.ConnectionExecutors;
import io.loomgate.threads.ThreadModel;
import io.loomgate.threads.Watchdog;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.function.Consumer;
import org.HdrHistogram.Histogram;

/**
 * Drives HTTP/1.1 keep-alive load at one URL: one virtual thread per connection, each sending the same pre-encoded
 * request, in the closed model (next request when the previous is answered) or the open model (a fixed rate, latency
 * timed from each request's intended start). The calling thread watches: once a second it folds the latency
 * recorders into the totals and reports progress, and at the deadline it stops the connections; a watchdog of the
 * run's own expires overdue responses a few times per timeout.
 *
 * <p>Lifecycle of a run: warm-up (responses not recorded) → measured window (a duration, or a number of requests) →
 * stop (sockets closed, requests still in flight not counted) → {@link LoadResult}.
 */
public final class LoadGenerator {
    private static final long TICK_NANOS = 1_000_000_000L;
    /** How long connections get to notice the stop before the run gives up waiting for them. */
    private static final long STOP_GRACE_NANOS = 5_000_000_000L;

    private LoadGenerator() {
    }

    /** Runs the load and returns what was measured; {@code progress} gets a report about once a second. */
    public static LoadResult run(LoadSpec spec, Consumer<Progress> progress) throws InterruptedException {
        byte[] request = encodeRequest(spec);
        Histogram corrected = new Histogram(LoadRun.HIGHEST_MICROS, 3);
        Histogram uncorrected = new Histogram(LoadRun.HIGHEST_MICROS, 3);
        long endNanos;
        LoadRun run;
        // Overdue responses are looked for four times per timeout (at most every 10 ms, at least every second).
        Duration expiryTick = Duration.ofNanos(Math.clamp(spec.timeout().toNanos() / 4, 10_000_000L, TICK_NANOS));
        try (Watchdog watchdog = Watchdog.start("load-watchdog", expiryTick);
             ExecutorService connections = ConnectionExecutors.create(ThreadModel.VIRTUAL, "load")) {
            run = new LoadRun(spec, request, System.nanoTime(), watchdog);
            for (int i = 0; i < spec.connections(); i++) {
                connections.execute(new LoadConnection(run, i));
            }
            endNanos = watch(run, corrected, uncorrected, progress);
            run.stop();
            run.awaitConnections(STOP_GRACE_NANOS);
            connections.shutdownNow();
        }
        corrected.add(run.corrected.getIntervalHistogram());
        uncorrected.add(spec.openModel() ? run.uncorrected.getIntervalHistogram() : corrected);
        double wall = Math.max(1e-9, (endNanos - run.measureStartNanos) / 1e9);
        long requests = run.responses.sum();
        LoadResult.Errors errors = new LoadResult.Errors(run.connectErrors.sum(), run.timeoutErrors.sum(),
                run.resetErrors.sum(), run.statusErrors.sum());
        return new LoadResult(spec.target().toString(), spec.connections(), run.connectionsServed(), spec.rate(),
                requests, errors, requests / wall, run.bytes.sum() / wall, LoadResult.Latency.ofMicros(corrected),
                LoadResult.Latency.ofMicros(uncorrected), wall);
    }

    /**
     * Ticks once a second until the deadline (or, counting requests, until every connection ended). Also reports at
     * the moment measurement begins, so a watcher (the showdown) can start its own counters then. Overdue responses
     * are the run's watchdog's business.
     */
    private static long watch(LoadRun run, Histogram corrected, Histogram uncorrected, Consumer<Progress> progress)
            throws InterruptedException {
        long lastTick = run.startNanos;
        boolean measuring = run.measureStartNanos == run.startNanos;
        while (true) {
            long now = System.nanoTime();
            long wake = Math.min(lastTick + TICK_NANOS, run.deadlineNanos);
            if (!measuring) {
                wake = Math.min(wake, run.measureStartNanos);
            }
            boolean allEnded = run.awaitConnections(Math.max(0, wake - now));
            now = System.nanoTime();
            if (allEnded || now >= run.deadlineNanos) {
                return Math.min(now, run.deadlineNanos);
            }
            boolean phaseChanged = !measuring && now >= run.measureStartNanos;
            if (phaseChanged || now - lastTick >= TICK_NANOS) {
                measuring |= phaseChanged;
                Histogram interval = run.corrected.getIntervalHistogram();
                corrected.add(interval);
                if (run.spec.openModel()) {
                    uncorrected.add(run.uncorrected.getIntervalHistogram());
                }
                double rps = run.recentResponses.sumThenReset() / Math.max(1e-3, (now - lastTick) / 1e9);
                lastTick = now;
                progress.accept(progressAt(run, now, rps, interval));
            }
        }
    }

    private static Progress progressAt(LoadRun run, long now, double rps, Histogram interval) {
        boolean warming = now < run.measureStartNanos;
        double elapsed = (now - (warming ? run.startNanos : run.measureStartNanos)) / 1e9;
        double total = warming ? run.spec.warmup().toNanos() / 1e9
                : run.spec.requests() > 0 ? 0 : run.spec.duration().toNanos() / 1e9;
        long errors = run.connectErrors.sum() + run.timeoutErrors.sum() + run.resetErrors.sum()
                + run.statusErrors.sum();
        double p99 = interval.getTotalCount() == 0 ? 0 : interval.getValueAtPercentile(99) / 1000.0;
        return new Progress(warming ? "warmup" : "measure", elapsed, total, run.responses.sum(), errors, rps, p99);
    }

    /**
     * Encodes the request once: every request of the run is these same bytes. Adds Host, and Content-Length when
     * there is a body and the caller gave no framing of their own.
     */
    static byte[] encodeRequest(LoadSpec spec) {
        Headers headers = new Headers();
        boolean hasHost = spec.headers().stream().anyMatch(h -> h.getKey().equalsIgnoreCase("Host"));
        if (!hasHost) {
            String host = spec.target().getHost();
            headers.add("Host", spec.target().getPort() < 0 ? host : host + ":" + spec.target().getPort());
        }
        for (Map.Entry<String, String> h : spec.headers()) {
            headers.add(h.getKey(), h.getValue());
        }
        if (spec.body().length > 0 && !headers.contains("Content-Length")
                && !headers.contains("Transfer-Encoding")) {
            headers.add("Content-Length", Integer.toString(spec.body().length));
        }
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(256 + spec.body().length);
        try {
            HttpOutput out = new HttpOutput(bytes, 4096);
            out.writeRequestHead(new RequestHead(spec.method(), spec.requestTarget(), HttpVersion.HTTP_1_1, headers));
            out.write(spec.body());
            out.flush();
        } catch (IOException e) {
            throw new UncheckedIOException("encoding into memory cannot fail", e);
        }
        return bytes.toByteArray();
    }
}
