import io.loomgate.testkit.BlackHole;
import java.net.Socket;
import java.util.concurrent.*;
import java.util.concurrent.atomic.*;
public class Repro {
  public static void main(String[] a) throws Exception {
    int n = Integer.parseInt(a[0]), par = Integer.parseInt(a[1]);
    AtomicInteger connected = new AtomicInteger(), made = new AtomicInteger(), failed = new AtomicInteger();
    ExecutorService ex = Executors.newFixedThreadPool(par);
    long t0 = System.nanoTime();
    for (int i = 0; i < n; i++) ex.submit(() -> {
      try (BlackHole h = new BlackHole(); Socket s = new Socket()) {
        made.incrementAndGet();
        try { s.connect(h.address(), 1500); connected.incrementAndGet(); } catch (java.net.SocketTimeoutException e) { }
      } catch (Exception e) { failed.incrementAndGet(); System.out.println(e); }
      return null;
    });
    ex.shutdown(); ex.awaitTermination(10, TimeUnit.MINUTES);
    System.out.printf("holes %d, probe connected %d, construction failed %d, %.1f s%n", made.get(), connected.get(), failed.get(), (System.nanoTime()-t0)/1e9);
  }
}
