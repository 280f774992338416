package io.loomgate.server;

import io.loomgate.threads.ConnectionExecutors;
import io.loomgate.threads.ThreadModel;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.ref.Reference;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import javax.management.NotificationEmitter;

/**
 * A process of its own for {@link MemoryGateReopensTest}: the memory gate is the process's, and the test needs a small
 * heap with a small young generation. It runs one gated {@link Listener} whose requests make garbage that young
 * collections promote ({@code /garbage}), hold live data ({@code /hold}: 64 KiB more each) or let it go
 * ({@code /release}); it prints {@code PORT <n>} once listening, {@code SHUT held=<n>} when it first refuses a hold
 * because the gate is shut, and a {@code STATE} line whenever the gate or the count of full collections changes, e.g.
 * {@code STATE shut=false full=1} (Serial's full collector, MarkSweepCompact).
 */
final class MemoryGateChild {
    /** What /hold keeps live. */
    private static final Queue<byte[]> HELD = new ConcurrentLinkedQueue<>();
    /** Whether the first hold refused on a shut gate has been reported ({@code SHUT held=<n>}). */
    private static final AtomicBoolean SHUT_REPORTED = new AtomicBoolean();

    private MemoryGateChild() {
    }

    private static final GarbageCollectorMXBean FULL = ManagementFactory.getGarbageCollectorMXBeans().stream()
            .filter(c -> c.getName().equals("MarkSweepCompact")).findFirst()
            .orElseThrow(() -> new IllegalStateException("run with -XX:+UseSerialGC"));
    /** Full collections whose notification the gate has had (this listener runs after the gate's). */
    private static final AtomicLong JUDGED = new AtomicLong();

    public static void main(String[] args) throws Exception {
        Listener.memoryGateShut(); // the gate listens to collections first
        ((NotificationEmitter) FULL).addNotificationListener((n, handback) -> JUDGED.incrementAndGet(), null, null);
        Listener listener = new Listener(ListenerSettings.defaults("127.0.0.1", 0), MemoryGateChild::handle,
                ConnectionExecutors.create(ThreadModel.VIRTUAL, "child-conn"), ConnectionListener.NOOP).start();
        System.out.println("PORT " + listener.port());
        System.out.flush();
        GarbageCollectorMXBean full = FULL;
        String last = "";
        while (true) { // ends when the test destroys the process
            String state = "STATE shut=" + Listener.memoryGateShut() + " full=" + full.getCollectionCount();
            if (!state.equals(last)) {
                System.out.println(state);
                System.out.flush();
                last = state;
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
        }
    }

    private static void handle(ServerExchange ex) throws java.io.IOException {
        switch (ex.request().path()) {
            case "/garbage" -> {
                // 64 KiB in pieces, alive while the request waits 1 ms (as for its origin) and is answered: alive at
                // a young collection, then garbage
                List<byte[]> pieces = new ArrayList<>();
                for (int i = 0; i < 8; i++) {
                    pieces.add(new byte[8192]);
                }
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
                ex.respond(200, "garbage " + pieces.size());
                Reference.reachabilityFence(pieces);
            }
            case "/hold" -> { // 64 KiB more, unless the gate is shut: then the test stops before the heap runs out
                // The gate hears of a collection a moment after it: wait for that, so no hold slips past a shut.
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                while (JUDGED.get() < FULL.getCollectionCount() && System.nanoTime() < deadline) {
                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
                }
                if (Listener.memoryGateShut()) {
                    if (SHUT_REPORTED.compareAndSet(false, true)) {
                        System.out.println("SHUT held=" + HELD.size());
                        System.out.flush();
                    }
                    ex.respond(200, "shut " + HELD.size());
                } else {
                    HELD.add(new byte[64 * 1024]);
                    ex.respond(200, "held " + HELD.size());
                }
            }
            case "/release" -> {
                HELD.clear();
                ex.respond(200, "released");
            }
            default -> ex.respond(200, "ok");
        }
    }
}
