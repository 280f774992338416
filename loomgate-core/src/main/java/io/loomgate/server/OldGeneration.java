package io.loomgate.server;

import com.sun.management.GarbageCollectionNotificationInfo;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryNotificationInfo;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.MemoryUsage;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.LongConsumer;
import java.util.stream.Collectors;
import javax.management.NotificationEmitter;
import javax.management.openmbean.CompositeData;

/**
 * The heap's old generation as {@link MemoryGate} judges it: what it holds, its ceiling, and a way to have it
 * collected. Long-lived data (parked connections, requests in flight, caches) ends up there; the young generation is
 * the allocation buffer, and what a young collection leaves in the old generation includes whatever it promoted that
 * has died since, which only a full collection tells apart.
 */
interface OldGeneration {

    /** Bytes in use now, garbage included (an upper bound of what is live). */
    long used();

    /** The most it can grow to. */
    long max();

    /** Asks the JVM for one full collection ({@link System#gc()}; nothing happens under -XX:+DisableExplicitGC). */
    void collect();

    /**
     * Sets the use, garbage included, past which the JVM signals the gate (see {@link JvmOldGeneration#onPastMark});
     * the signal comes once per crossing, after the collection that promoted past it.
     */
    void markAt(long usedBytes);

    /** This JVM's, read from its memory pools. */
    static JvmOldGeneration ofThisJvm() {
        List<MemoryPoolMXBean> heap = ManagementFactory.getMemoryPoolMXBeans().stream()
                .filter(p -> p.getType() == MemoryType.HEAP).toList();
        // Serial's "Tenured Gen", Parallel's "PS Old Gen", G1's "G1 Old Gen", ZGC's "ZGC Old Generation"; a collector
        // with one generation (Shenandoah, Epsilon) has one heap pool, and then that is the old generation.
        List<MemoryPoolMXBean> old = heap.stream()
                .filter(p -> p.getName().contains("Old") || p.getName().contains("Tenured")).toList();
        return new JvmOldGeneration(old.isEmpty() ? heap : old,
                heap.stream().map(MemoryPoolMXBean::getName).collect(Collectors.toUnmodifiableSet()));
    }

    /** The pools of this JVM's old generation. */
    record JvmOldGeneration(List<MemoryPoolMXBean> pools, Set<String> heapPools) implements OldGeneration {
        /** The end actions of the collections that cover the whole heap (see {@link #isFull}). */
        private static final Set<String> WHOLE_HEAP_ACTIONS = Set.of("end of major GC", "end of GC cycle");

        @Override
        public long used() {
            long used = 0;
            for (MemoryPoolMXBean p : pools) {
                used += p.getUsage().getUsed();
            }
            return used;
        }

        @Override
        public long max() {
            long max = 0;
            for (MemoryPoolMXBean p : pools) {
                long m = p.getUsage().getMax();
                if (m < 0) { // undefined: the heap's ceiling is this pool's
                    return Runtime.getRuntime().maxMemory();
                }
                max += m;
            }
            return max;
        }

        @Override
        public void collect() {
            System.gc();
        }

        /**
         * Sets the pool's usage threshold. Only a single old pool that supports one has a mark (on JDK 25 Serial's,
         * Parallel's, G1's, ZGC's and Shenandoah's do); with none, the gate judges after the JVM's own full
         * collections only.
         */
        @Override
        public void markAt(long usedBytes) {
            if (pools.size() == 1 && pools.getFirst().isUsageThresholdSupported()) {
                MemoryPoolMXBean pool = pools.getFirst();
                long max = pool.getUsage().getMax();
                // the JVM refuses a threshold above the pool's maximum (IllegalArgumentException)
                pool.setUsageThreshold(max < 0 ? usedBytes : Math.min(usedBytes, max));
            }
        }

        /**
         * Calls {@code pastMark} when the old generation's use has passed the mark ({@link #markAt}): the JVM checks
         * a heap pool's usage threshold as each collection ends, so the signal follows the young collection that
         * promoted past it (an allocation straight into the old generation is seen at the next collection), on the
         * JVM's notification thread.
         */
        void onPastMark(Runnable pastMark) {
            if (pools.size() != 1) {
                return;
            }
            String pool = pools.getFirst().getName();
            ((NotificationEmitter) ManagementFactory.getMemoryMXBean()).addNotificationListener((n, handback) -> {
                if (MemoryNotificationInfo.MEMORY_THRESHOLD_EXCEEDED.equals(n.getType())
                        && pool.equals(MemoryNotificationInfo.from((CompositeData) n.getUserData()).getPoolName())) {
                    pastMark.run();
                }
            }, null, null);
        }

        /**
         * Whether a collection by the collector {@code name} that ended with {@code action} was full: it collected
         * every heap pool (Serial's and Parallel's young collectors do not list the old pool; G1's says "end of minor
         * GC") and ended as a major collection (Serial's, Parallel's and G1's full collections) or a whole-heap
         * concurrent cycle (ZGC's major cycles, Shenandoah's; ZGC's minor cycles list both pools too and are told
         * apart by name). G1's concurrent marking ("end of concurrent GC") frees nothing by itself: not full.
         */
        boolean isFull(String name, Set<String> collectorPools, String action) {
            return WHOLE_HEAP_ACTIONS.contains(action) && collectorPools.containsAll(heapPools)
                    && !name.contains("Minor");
        }

        /** What the old generation's pools hold after a collection, from its notification. */
        long usedAfter(Map<String, MemoryUsage> after) {
            long used = 0;
            for (MemoryPoolMXBean p : pools) {
                MemoryUsage u = after.get(p.getName());
                used += u == null ? 0 : u.getUsed();
            }
            return used;
        }

        /** Tells {@code afterFullCollection} what the old generation holds after each full collection. */
        void onFullCollection(LongConsumer afterFullCollection) {
            for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
                if (gc instanceof NotificationEmitter emitter) {
                    Set<String> collectorPools = Set.of(gc.getMemoryPoolNames());
                    emitter.addNotificationListener((n, handback) -> {
                        if (!GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION.equals(n.getType())) {
                            return;
                        }
                        var info = GarbageCollectionNotificationInfo.from((CompositeData) n.getUserData());
                        if (isFull(gc.getName(), collectorPools, info.getGcAction())) {
                            afterFullCollection.accept(usedAfter(info.getGcInfo().getMemoryUsageAfterGc()));
                        }
                    }, null, null);
                }
            }
        }
    }
}
