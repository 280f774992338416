package io.loomgate.http2;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A well-behaved client beside a probe's hostile case ({@link HostileProbes}'s clients, {@link OriginProbeTest}'s
 * origins): one request after another on a virtual thread of its own, 20 ms apart, until it is closed; closing waits
 * (with a deadline) until at least one request was served while the case ran, then asserts that none failed. Each
 * probe says what one request is and what it tolerates: a miss is a request answered wrongly or not at all.
 */
final class BystanderLoop implements AutoCloseable {
    /** One request: null when it was served well, else what was wrong with it (a miss). */
    interface Attempt {
        String miss() throws Exception;
    }

    /**
     * How an attempt's answer begins when the gateway shed it as documented, neither served nor a miss: printed, and
     * the loop goes on (its close still needs one request served). {@link ProbeListeners#bystander}'s TLS handshakes
     * on a fixed pool of platform threads, cut because no thread was free to start them within header-timeout, or
     * (once in a row) not done within it beyond the probes' own silent connections.
     */
    static final String SHED = "shed: ";

    private final AtomicInteger served = new AtomicInteger();
    private final AtomicReference<String> failed = new AtomicReference<>();
    private volatile boolean stop;
    /** Held by each request, and by a probe between {@link #pause} and {@link #resume}. */
    private final ReentrantLock gate = new ReentrantLock();
    private final Thread thread;
    private final String who;
    private final long joinMillis;

    /**
     * @param name          names the loop's thread and its printed misses
     * @param who           what the bystander is, for the assertions
     * @param forgivesOneMiss a miss is printed, and fails the loop only if the next request misses too; else the
     *                      first miss fails it
     * @param joinMillis    how long closing waits for the request in flight
     */
    BystanderLoop(String name, String who, boolean forgivesOneMiss, long joinMillis, Attempt attempt) {
        this.who = who;
        this.joinMillis = joinMillis;
        thread = Thread.ofVirtual().name(name).start(() -> {
            String missed = null;
            while (!stop && failed.get() == null) {
                String miss;
                try {
                    gate.lockInterruptibly();
                    try {
                        miss = attempt.miss();
                    } finally {
                        gate.unlock();
                    }
                    if (miss == null) {
                        served.incrementAndGet();
                    }
                    Thread.sleep(20); // pacing: a client that keeps asking, not a flood
                } catch (InterruptedException e) {
                    return;
                } catch (Exception | AssertionError e) {
                    miss = e.toString();
                }
                if (miss != null && miss.startsWith(SHED)) {
                    System.out.printf("PROBE %s %s%n", name, miss);
                    continue; // neither served nor missed: see SHED
                }
                if (miss != null && !forgivesOneMiss) {
                    failed.set(miss);
                } else if (miss != null) {
                    System.out.printf("PROBE %s missed: %s%n", name, miss);
                    if (missed != null) {
                        failed.set("two in a row: " + missed + "; then " + miss);
                    }
                }
                missed = miss;
            }
        });
    }

    /**
     * Waits until the request in flight (if any) is answered and starts no other until {@link #resume}: a probe that
     * must do something while none of this client's requests is on its way (an origin's unasked-for answer).
     */
    void pause() {
        gate.lock();
    }

    /** After {@link #pause}, by the same thread; else nothing. */
    void resume() {
        if (gate.isHeldByCurrentThread()) {
            gate.unlock();
        }
    }

    /** Ends the loop once at least one request was served while the probe ran, and asserts none failed. */
    @Override
    public void close() throws InterruptedException {
        long end = System.nanoTime() + 15_000_000_000L;
        while (served.get() == 0 && failed.get() == null && System.nanoTime() < end) {
            Thread.sleep(10);
        }
        stop = true;
        thread.join(joinMillis);
        assertThat(failed.get()).as(who).isNull();
        assertThat(served.get()).as("well-behaved requests served meanwhile").isPositive();
    }
}
