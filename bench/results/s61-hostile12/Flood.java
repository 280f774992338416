import javax.net.ssl.*;
import java.io.*;
import java.security.cert.X509Certificate;
/** N KeyUpdate(update_requested) on one TLS 1.3 connection, the server's answers read by a thread of their own. */
public class Flood {
    public static void main(String[] a) throws Exception {
        int n = Integer.parseInt(a[1]);
        SSLContext c = SSLContext.getInstance("TLS");
        c.init(null, new TrustManager[] {new X509TrustManager() {
            public void checkClientTrusted(X509Certificate[] x, String s) {}
            public void checkServerTrusted(X509Certificate[] x, String s) {}
            public X509Certificate[] getAcceptedIssuers() { return new X509Certificate[0]; }}}, null);
        SSLSocket s = (SSLSocket) c.getSocketFactory().createSocket("127.0.0.1", Integer.parseInt(a[0]));
        s.setEnabledProtocols(new String[] {"TLSv1.3"});
        SSLParameters p = s.getSSLParameters(); p.setApplicationProtocols(new String[] {"http/1.1"}); s.setSSLParameters(p);
        s.startHandshake();

        long t0 = System.nanoTime();
        int i = 0;
        try { for (; i < n; i++) s.startHandshake(); } catch (IOException e) { System.out.println("write failed after " + i + ": " + e); }
        System.out.printf("%d key updates sent in %d ms%n", i, (System.nanoTime() - t0) / 1_000_000);
        Thread.sleep(1000); // the gateway's answers arrive
        s.close();
    }
}
