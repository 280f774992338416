import java.lang.management.ManagementFactory;
/** CPU per Thread.yield of a virtual thread DEPTH frames deep (one carrier busy with it), against the same loop without yields. */
public class YieldCost {
    static volatile long sink;
    static long loop(int depth, long n, boolean yield) {
        if (depth > 0) return loop(depth - 1, n, yield) + 1;
        long s = 0;
        for (long i = 0; i < n; i++) { if (yield) Thread.yield(); s += i; }
        sink = s; return 0;
    }
    static double run(int depth, long n, boolean yield) throws Exception {
        var os = (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        long c0 = os.getProcessCpuTime();
        Thread t = Thread.ofVirtual().start(() -> loop(depth, n, yield));
        t.join();
        return (os.getProcessCpuTime() - c0) / (double) n;
    }
    public static void main(String[] a) throws Exception {
        int depth = Integer.parseInt(a[0]); long n = Long.parseLong(a[1]);
        for (int r = 0; r < 5; r++) {
            double y = run(depth, n, true), no = run(depth, n, false);
            System.out.printf("depth %d: %.0f ns CPU per yield (loop without yields %.1f ns per turn)%n", depth, y - no, no);
        }
    }
}
