package io.loomgate.server;

/** EpollFuzzTest outside Maven on the fixed poller: verdict, time, the poller's hand-overs and stand-ins. */
public class FuzzFix {
    public static void main(String[] a) throws Throwable {
        long t = System.nanoTime();
        String verdict;
        try {
            new EpollFuzzTest().thousandsOfRandomConnectionsLoseNoByteAndLeakNoFd();
            verdict = "PASS";
        } catch (Throwable e) {
            String m = String.valueOf(e.getMessage());
            verdict = "FAIL " + m.replace("\n", " ");
        }
        System.out.printf("%s %d ms handoffs %d standIns %d%n", verdict, (System.nanoTime() - t) / 1_000_000,
                EpollPoller.shared().handoffs(), EpollPoller.shared().standIns());
        System.exit(0);
    }
}
