package io.loomgate.http2;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.function.Executable;

/**
 * Runs a probe's steps in lanes, side by side: the steps of one lane one after another on a virtual thread of its
 * own, at most {@code width} lanes at a time, and each step's outcome (passed, failed, aborted) reported by the
 * dynamic test that stands for it. A probe whose steps mostly wait (a route's timeout, a trickling origin) then takes
 * about as long as its longest lanes rather than the sum of its steps, while every step keeps its own test, name and
 * assertion. What the steps of a lane share (an origin, a route and its metrics, a pooled connection a follow-up
 * checks) is the lane's alone, so a step sees only its own lane's earlier steps, as it did when everything ran in a
 * row. The lanes start when the first of their tests runs (after the class's {@code @BeforeAll}).
 */
final class ProbeLanes {
    private final Semaphore width;
    private final Duration patience;
    private final List<Lane> lanes = new ArrayList<>();
    private final AtomicBoolean started = new AtomicBoolean();

    /**
     * @param width    how many lanes run at once (1: one step after another, as a plain test class runs)
     * @param patience how long a test waits for its step's outcome, the lane's earlier steps included
     */
    ProbeLanes(int width, Duration patience) {
        if (width < 1) {
            throw new IllegalArgumentException("width " + width);
        }
        this.width = new Semaphore(width, true); // fair: lanes take their turn in the order they were added
        this.patience = patience;
    }

    /** A new lane, started after the lanes added before it. */
    Lane lane(String name) {
        Lane l = new Lane(name);
        lanes.add(l);
        return l;
    }

    /**
     * Waits until every step of every lane has its outcome (whatever it is: each step's test reports it), so that
     * what comes next runs alone; returns at once when the lanes have not started.
     */
    void awaitAll() throws InterruptedException {
        if (!started.get()) {
            return;
        }
        long end = System.nanoTime() + patience.toNanos();
        for (Lane l : lanes) {
            for (Step s : l.steps) {
                try {
                    s.outcome().get(Math.max(0, end - System.nanoTime()), TimeUnit.NANOSECONDS);
                } catch (ExecutionException e) {
                    // the step's own test reports it
                } catch (TimeoutException e) {
                    throw new AssertionError("lane " + l.name + " did not finish within " + patience, e);
                }
            }
        }
    }

    private void startOnce() {
        if (!started.compareAndSet(false, true)) {
            return;
        }
        for (Lane l : lanes) {
            Thread.ofVirtual().name("probe-lane-" + l.name).start(l::run);
        }
    }

    /** Steps run in the order they were added; one that fails does not stop the ones after it (each is a test). */
    final class Lane {
        private final String name;
        private final List<Step> steps = new ArrayList<>();

        private Lane(String name) {
            this.name = name;
        }

        /** Adds a step; the returned body is the dynamic test's: it waits for the step's outcome and reports it. */
        Executable then(Executable step) {
            if (started.get()) {
                throw new IllegalStateException("lane " + name + " already started");
            }
            Step s = new Step(step, new CompletableFuture<>());
            steps.add(s);
            int index = steps.size();
            return () -> {
                startOnce();
                try {
                    s.outcome().get(patience.toMillis(), TimeUnit.MILLISECONDS);
                } catch (ExecutionException e) {
                    throw e.getCause(); // the step's own assertion error or abort, its stack trace as thrown
                } catch (TimeoutException e) {
                    throw new AssertionError("lane " + name + " did not finish its step " + index + " of "
                            + steps.size() + " within " + patience + " (with the steps before it)", e);
                }
            };
        }

        private void run() {
            width.acquireUninterruptibly();
            try {
                for (int i = 0; i < steps.size(); i++) {
                    Step s = steps.get(i);
                    long t0 = System.nanoTime();
                    try {
                        s.body().execute();
                        s.outcome().complete(null);
                    } catch (Throwable t) {
                        s.outcome().completeExceptionally(t);
                    }
                    // the report's time of a step's test is its wait; the step's own time is here
                    System.out.printf("LANE %s step %d/%d: %d ms%s%n", name, i + 1, steps.size(),
                            (System.nanoTime() - t0) / 1_000_000, s.outcome().isCompletedExceptionally() ? ", threw"
                                    : "");
                }
            } finally {
                width.release();
            }
        }
    }

    private record Step(Executable body, CompletableFuture<Void> outcome) {
    }
}
