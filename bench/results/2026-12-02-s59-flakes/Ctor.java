import io.loomgate.testkit.BlackHole;
public class Ctor {
  public static void main(String[] a) throws Exception {
    int n = Integer.parseInt(a[0]); long t0 = System.nanoTime(); long max = 0;
    for (int i = 0; i < n; i++) { long t = System.nanoTime(); try (BlackHole h = new BlackHole()) {} max = Math.max(max, System.nanoTime() - t); }
    System.out.printf("%d holes, mean %.0f ms, max %.0f ms%n", n, (System.nanoTime() - t0) / 1e6 / n, max / 1e6);
  }
}
