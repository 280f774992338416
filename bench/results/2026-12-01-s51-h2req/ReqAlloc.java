package io.loomgate.http2;

import io.loomgate.http.Headers;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;

/** Bytes allocated per request head written to an HTTP/2 origin: array then copy (old) vs straight into the buffer. */
public class ReqAlloc {
    public static void main(String[] a) throws Exception {
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        Headers h = new Headers().add("Host", "gw.example").add("User-Agent", "h2load nghttp2/1.59.0")
                .add("Accept", "*/*").add("X-Forwarded-For", "127.0.0.1").add("X-Forwarded-Proto", "http")
                .add("X-Forwarded-Host", "gw.example").add("Forwarded", "for=127.0.0.1;proto=http;host=gw.example")
                .add("Via", "2.0 loomgate");
        FrameWriter w = new FrameWriter(OutputStream.nullOutputStream(), false);
        int n = 100_000;
        for (int round = 0; round < 6; round++) {
            boolean old = round % 2 == 0;
            long before = mx.getCurrentThreadAllocatedBytes();
            for (int i = 0; i < n; i++) {
                if (old) {
                    byte[] b = Http2ClientStream.encodeRequest("GET", "http", "origin:8080", "/hello", h, null);
                    w.headers(1 + 2 * (i & 0xffff), b, 16_384, true);
                } else {
                    w.requestHeaders(1 + 2 * (i & 0xffff), "GET", "http", "origin:8080", "/hello", h, null, 16_384,
                            true);
                }
            }
            long after = mx.getCurrentThreadAllocatedBytes();
            System.out.printf("round %d %-13s %.1f B per head%n", round, old ? "array+copy" : "in buffer",
                    (after - before) / (double) n);
        }
    }
}
