package io.loomgate.observe;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.management.ManagementFactory;
import java.lang.management.PlatformManagedObject;

/**
 * The virtual-thread scheduler's carrier pool, read from the JDK's {@code jdk.management.VirtualThreadSchedulerMXBean}
 * (JDK 24+). Found by name because Loomgate compiles for Java 21, where that interface does not exist. It is taken
 * with {@link ManagementFactory#getPlatformMXBean(Class)}, not through the platform MBean server: making that server
 * registers every platform MBean, the diagnostic commands' among them (which parse JFR's configuration files for
 * their help text), about a seventh of the gateway's start-up CPU before its first request. On 21-23 only the
 * parallelism is known (from the system property the scheduler itself reads) and the other values are NaN, which
 * Prometheus renders as such.
 */
final class CarrierPool {
    private static final String MXBEAN = "jdk.management.VirtualThreadSchedulerMXBean";

    /** The getters of the bean, bound to it; all null before JDK 24. */
    private final MethodHandle parallelism;
    private final MethodHandle poolSize;
    private final MethodHandle mounted;
    private final MethodHandle queued;

    CarrierPool() {
        Class<?> type = type();
        Object bean = bean(type);
        this.parallelism = getter(type, bean, "getParallelism", int.class);
        this.poolSize = getter(type, bean, "getPoolSize", int.class);
        this.mounted = getter(type, bean, "getMountedVirtualThreadCount", int.class);
        this.queued = getter(type, bean, "getQueuedVirtualThreadCount", long.class);
    }

    private static Class<?> type() {
        try {
            return Class.forName(MXBEAN, false, ClassLoader.getSystemClassLoader());
        } catch (ClassNotFoundException e) {
            return null; // before JDK 24, or a runtime without jdk.management
        }
    }

    @SuppressWarnings("unchecked")
    private static Object bean(Class<?> type) {
        if (type == null || !PlatformManagedObject.class.isAssignableFrom(type)) {
            return null;
        }
        try {
            return ManagementFactory.getPlatformMXBean((Class<? extends PlatformManagedObject>) type);
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    private static MethodHandle getter(Class<?> type, Object bean, String name, Class<?> returns) {
        if (bean == null) {
            return null;
        }
        try {
            return MethodHandles.publicLookup().findVirtual(type, name, MethodType.methodType(returns)).bindTo(bean);
        } catch (ReflectiveOperationException e) {
            return null;
        }
    }

    boolean available() {
        return parallelism != null;
    }

    /** Carriers the scheduler aims to keep busy (defaults to the CPU count). */
    double parallelism() {
        if (parallelism == null) {
            return Integer.getInteger("jdk.virtualThreadScheduler.parallelism",
                    Runtime.getRuntime().availableProcessors());
        }
        return read(parallelism);
    }

    /** Carrier threads started now (grows above parallelism while virtual threads are pinned). */
    double poolSize() {
        return read(poolSize);
    }

    /** Virtual threads mounted on a carrier now. */
    double mounted() {
        return read(mounted);
    }

    /** Virtual threads ready to run and waiting for a carrier. */
    double queued() {
        return read(queued);
    }

    private static double read(MethodHandle getter) {
        if (getter == null) {
            return Double.NaN;
        }
        try {
            return ((Number) getter.invoke()).doubleValue();
        } catch (Throwable e) { // the bean's getters declare nothing; a runtime failure reads as unknown
            return Double.NaN;
        }
    }
}
