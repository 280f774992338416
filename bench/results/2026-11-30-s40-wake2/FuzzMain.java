package io.loomgate.server;

import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinWorkerThread;
import java.util.concurrent.atomic.AtomicReference;

/** EpollFuzzTest outside Maven, with the scheduler's queues sampled every 10 ms: PASS/FAIL, time, worst queues. */
public class FuzzMain {
    public static void main(String[] a) throws Throwable {
        AtomicReference<ForkJoinPool> pool = new AtomicReference<>();
        Thread.ofVirtual().start(() -> pool.set(((ForkJoinWorkerThread) Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getClass().getName().equals("jdk.internal.misc.CarrierThread")).findFirst().get()).getPool())).join();
        long[] worst = new long[2];
        long[] sum = new long[3];
        Thread sampler = Thread.ofPlatform().daemon().start(() -> {
            while (true) {
                long s = pool.get().getQueuedSubmissionCount();
                long l = pool.get().getQueuedTaskCount();
                worst[0] = Math.max(worst[0], s);
                worst[1] = Math.max(worst[1], l);
                sum[0] += s; sum[1] += l; sum[2]++;
                try { Thread.sleep(10); } catch (InterruptedException e) { return; }
            }
        });
        long t = System.nanoTime();
        String verdict;
        try {
            new EpollFuzzTest().thousandsOfRandomConnectionsLoseNoByteAndLeakNoFd();
            verdict = "PASS";
        } catch (Throwable e) {
            String m = String.valueOf(e.getMessage());
            verdict = "FAIL " + m.substring(0, Math.min(1500, m.length()));
        }
        System.out.printf("%s %d ms; external submissions worst %d mean %.1f; carriers' queues worst %d mean %.1f%n",
                verdict, (System.nanoTime() - t) / 1_000_000, worst[0], (double) sum[0] / sum[2], worst[1],
                (double) sum[1] / sum[2]);
        System.exit(0);
    }
}
