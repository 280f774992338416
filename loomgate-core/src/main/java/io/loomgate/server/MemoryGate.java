package io.loomgate.server;

import com.sun.management.GarbageCollectionNotificationInfo;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.MemoryUsage;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;
import javax.management.NotificationEmitter;
import javax.management.openmbean.CompositeData;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Admission by memory. After every garbage collection it notes how full the heap still is (live data, not garbage);
 * while that is above {@link #PAUSE_ABOVE} of the maximum heap, listeners accept no new connections, which wait in
 * the kernel's backlog, until a collection brings it under {@link #RESUME_BELOW}. Connections already accepted go on
 * being served: what each holds is bounded (body buffers are borrowed only while bytes move), so turning newcomers
 * away is what keeps the heap from running out under a flood of slow clients. One per process, since the heap is.
 *
 * <p>Thread-safety: {@link #afterCollection} runs on the JVM's notification thread and writes one volatile flag;
 * accept loops only read it.
 */
final class MemoryGate {
    private static final Logger log = LoggerFactory.getLogger(MemoryGate.class);
    /** Heap share, live after a collection, above which accepting pauses. */
    static final double PAUSE_ABOVE = 0.85;
    /** Heap share below which accepting resumes (lower than the pause mark, so the gate does not flap). */
    static final double RESUME_BELOW = 0.70;

    static final MemoryGate PROCESS = new MemoryGate(Runtime.getRuntime().maxMemory()).watchCollections();

    private final long maxHeap;
    private volatile boolean full;

    MemoryGate(long maxHeap) {
        this.maxHeap = maxHeap;
    }

    /** Whether new connections must wait now. */
    boolean isFull() {
        return full;
    }

    /** Updates the gate from the heap in use just after a collection; returns whether it is full. */
    boolean afterCollection(long usedAfterGc) {
        double share = (double) usedAfterGc / maxHeap;
        if (!full && share > PAUSE_ABOVE) {
            full = true;
            log.warn("heap {}% full after garbage collection: new connections wait until it is below {}%",
                    Math.round(share * 100), Math.round(RESUME_BELOW * 100));
        } else if (full && share < RESUME_BELOW) {
            full = false;
            log.info("heap {}% full after garbage collection: accepting connections again", Math.round(share * 100));
        }
        return full;
    }

    /** Parks while the gate is full, until it opens or {@code stop} says to give up. */
    void awaitRoom(BooleanSupplier stop) {
        while (full && !stop.getAsBoolean()) {
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
        }
    }

    private MemoryGate watchCollections() {
        Set<String> heapPools = ManagementFactory.getMemoryPoolMXBeans().stream()
                .filter(p -> p.getType() == MemoryType.HEAP).map(MemoryPoolMXBean::getName)
                .collect(Collectors.toUnmodifiableSet());
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            if (gc instanceof NotificationEmitter emitter) {
                emitter.addNotificationListener((n, handback) -> {
                    if (GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION.equals(n.getType())) {
                        long used = 0;
                        var after = GarbageCollectionNotificationInfo.from((CompositeData) n.getUserData())
                                .getGcInfo().getMemoryUsageAfterGc();
                        for (var e : after.entrySet()) {
                            if (heapPools.contains(e.getKey())) {
                                MemoryUsage u = e.getValue();
                                used += u.getUsed();
                            }
                        }
                        afterCollection(used);
                    }
                }, null, null);
            }
        }
        return this;
    }
}
