package io.loomgate.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.sun.management.UnixOperatingSystemMXBean;
import java.lang.management.ManagementFactory;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The descriptor budget reads the limit and the open descriptors from Linux's files, not from the platform's
 * OperatingSystemMXBean (whose first use costs the start the JVM's container metrics): the same figures.
 */
class FdBudgetTest {
    @Test
    void theLimitAndTheOpenDescriptorsAreTheMxBeans() throws Exception {
        assumeTrue(ManagementFactory.getOperatingSystemMXBean() instanceof UnixOperatingSystemMXBean);
        UnixOperatingSystemMXBean os = (UnixOperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        assertThat(FdBudget.limit()).isEqualTo(os.getMaxFileDescriptorCount());

        List<ServerSocket> held = new ArrayList<>();
        try {
            long before = FdBudget.open();
            for (int i = 0; i < 20; i++) {
                held.add(new ServerSocket(0));
            }
            long after = FdBudget.open();
            // Other threads of the test JVM may open or close a few meanwhile; twenty more must show.
            assertThat(after - before).isBetween(18L, 22L);
            assertThat(after).isBetween(os.getOpenFileDescriptorCount() - 3, os.getOpenFileDescriptorCount() + 3);
        } finally {
            for (ServerSocket s : held) {
                s.close();
            }
        }
    }

    @Test
    void connectionsThatFitLeaveTheReserve() {
        long limit = FdBudget.limit();
        assumeTrue(limit > 0 && limit < Integer.MAX_VALUE);
        int fit = FdBudget.connectionsThatFit();
        // Half of what is free less the reserve kept for the rest of the start: each client connection with its
        // connection to an origin.
        assertThat(fit).isPositive().isLessThanOrEqualTo((int) ((limit - 64) / 2));
    }
}
