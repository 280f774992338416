package io.loomgate.server;

import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinWorkerThread;
import java.util.concurrent.atomic.AtomicReference;

/** FuzzMain with the busy loop's gaps printed every second. */
public class FuzzDbg {
    public static void main(String[] a) throws Throwable {
        AtomicReference<ForkJoinPool> pool = new AtomicReference<>();
        Thread.ofVirtual().start(() -> pool.set(((ForkJoinWorkerThread) Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getClass().getName().equals("jdk.internal.misc.CarrierThread")).findFirst().get()).getPool())).join();
        long t0 = System.nanoTime();
        Thread sampler = Thread.ofPlatform().daemon().start(() -> {
            while (true) {
                try { Thread.sleep(1000); } catch (InterruptedException e) { return; }
                long now = System.nanoTime();
                long gap = EpollPoller.DBG_MAXGAP; EpollPoller.DBG_MAXGAP = 0;
                System.out.printf("t=%d maxgap=%dms sinceLast=%dms hoQuiet=%d hoEmpty=%d hoStarved=%d ext=%d local=%d%n",
                    (now - t0) / 1_000_000_000L, gap / 1_000_000, (now - EpollPoller.DBG_LAST) / 1_000_000,
                    EpollPoller.DBG_Q, EpollPoller.DBG_E, EpollPoller.DBG_S,
                    pool.get().getQueuedSubmissionCount(), pool.get().getQueuedTaskCount());
            }
        });
        long t = System.nanoTime();
        String verdict;
        try {
            new EpollFuzzTest().thousandsOfRandomConnectionsLoseNoByteAndLeakNoFd();
            verdict = "PASS";
        } catch (Throwable e) {
            String m = String.valueOf(e.getMessage());
            verdict = "FAIL " + m.replace("\n", " ");
        }
        System.out.printf("%s %d ms%n", verdict, (System.nanoTime() - t) / 1_000_000);
        System.exit(0);
    }
}
