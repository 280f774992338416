import com.sun.management.ThreadMXBean;
import io.loomgate.http.Headers;
import java.lang.management.ManagementFactory;

/** Bytes one Headers of each capacity takes (itself and its arrays), by the thread's allocation counter. */
public class HeadersSize {
    static Object sink;
    public static void main(String[] a) {
        ThreadMXBean t = (ThreadMXBean) ManagementFactory.getThreadMXBean();
        long id = Thread.currentThread().threadId();
        int n = 10_000;
        Object[] keep = new Object[n];
        StringBuilder out = new StringBuilder();
        for (int cap : new int[] {0, 4, 6, 8, 10, 12, 16}) {
            for (int round = 0; round < 3; round++) {
                long b0 = t.getThreadAllocatedBytes(id);
                for (int i = 0; i < n; i++) {
                    keep[i] = new Headers(cap);
                }
                long b1 = t.getThreadAllocatedBytes(id);
                if (round == 2) out.append("capacity ").append(cap).append(": ").append((b1 - b0) / n).append(" B\n");
            }
        }
        sink = keep;
        System.out.print(out);
    }
}
