package io.loomgate.observe;

import java.lang.management.ManagementFactory;
import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.ObjectName;

/**
 * The virtual-thread scheduler's carrier pool, read from the JDK's {@code jdk.management:type=VirtualThreadScheduler}
 * MBean (JDK 24+). Read by name through the MBean server because Loomgate compiles for Java 21, where the
 * {@code VirtualThreadSchedulerMXBean} interface does not exist. On 21-23 only the parallelism is known (from the
 * system property the scheduler itself reads) and the other values are NaN, which Prometheus renders as such.
 */
final class CarrierPool {
    private static final String MBEAN = "jdk.management:type=VirtualThreadScheduler";

    private final MBeanServer server = ManagementFactory.getPlatformMBeanServer();
    private final ObjectName name;

    CarrierPool() {
        ObjectName found = null;
        try {
            ObjectName candidate = new ObjectName(MBEAN);
            if (server.isRegistered(candidate)) {
                found = candidate;
            }
        } catch (JMException e) {
            // the name is a constant and valid; an unregistered MBean means an older JDK
        }
        this.name = found;
    }

    boolean available() {
        return name != null;
    }

    /** Carriers the scheduler aims to keep busy (defaults to the CPU count). */
    double parallelism() {
        if (name == null) {
            return Integer.getInteger("jdk.virtualThreadScheduler.parallelism",
                    Runtime.getRuntime().availableProcessors());
        }
        return attribute("Parallelism");
    }

    /** Carrier threads started now (grows above parallelism while virtual threads are pinned). */
    double poolSize() {
        return attribute("PoolSize");
    }

    /** Virtual threads mounted on a carrier now. */
    double mounted() {
        return attribute("MountedVirtualThreadCount");
    }

    /** Virtual threads ready to run and waiting for a carrier. */
    double queued() {
        return attribute("QueuedVirtualThreadCount");
    }

    private double attribute(String attribute) {
        if (name == null) {
            return Double.NaN;
        }
        try {
            return ((Number) server.getAttribute(name, attribute)).doubleValue();
        } catch (JMException | ClassCastException e) {
            return Double.NaN;
        }
    }
}
