package io.loomgate.http1;

import static java.nio.charset.StandardCharsets.ISO_8859_1;

import io.loomgate.http.BufferPool;
import io.loomgate.http.Headers;
import io.loomgate.http.HttpLimits;
import io.loomgate.http.HttpVersion;
import io.loomgate.http.RequestHead;
import io.loomgate.http.ResponseHead;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The HTTP/1.1 codec's hot paths, one message per operation, on in-memory streams (no socket): a request head parsed
 * from a connection's read buffer, a response head encoded and handed to the socket, a chunked body decoded to its
 * end. Run with {@code -prof gc} for the bytes allocated per operation (gc.alloc.rate.norm), which do not depend on
 * how busy the machine is.
 *
 * <p>Two request heads: {@code wrk} is what the benchmark harness sends (W2: method, target, Host), {@code browser} a
 * browser-like head with 11 fields, some names outside the interned set and long values (cookie, user agent).
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Xmx256m"})
@State(Scope.Thread)
public class Http1CodecBenchmark {
    static final String WRK = "GET /hello HTTP/1.1\r\nHost: 127.0.0.1:18081\r\n\r\n";
    static final String BROWSER = "GET /api/v1/users/42/orders?page=2&size=50 HTTP/1.1\r\n"
            + "Host: api.example.com\r\n"
            + "User-Agent: Mozilla/5.0 (X11; Linux x86_64; rv:132.0) Gecko/20100101 Firefox/132.0\r\n"
            + "Accept: application/json, text/plain, */*\r\n"
            + "Accept-Language: en-GB,en;q=0.8\r\n"
            + "Accept-Encoding: gzip, deflate, br, zstd\r\n"
            + "Authorization: Bearer eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiI0MiJ9.c2lnbmF0dXJl\r\n"
            + "Connection: keep-alive\r\n"
            + "Cookie: session=6f1c2b9e4d; theme=dark; consent=1\r\n"
            + "Sec-Fetch-Mode: cors\r\n"
            + "traceparent: 00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01\r\n"
            + "X-Client-Version: 7.4.1\r\n"
            + "\r\n";

    @Param({"wrk", "browser"})
    public String request;

    private HttpInput requests;
    private HttpOutput responses;
    private ResponseHead response;
    private HttpInput chunkedBodies;

    @Setup
    public void setUp() {
        byte[] head = (request.equals("wrk") ? WRK : BROWSER).getBytes(ISO_8859_1);
        requests = new HttpInput(new OneMessagePerRead(head), BufferPool.SIZE, HttpLimits.DEFAULTS);
        responses = new HttpOutput(OutputStream.nullOutputStream(), BufferPool.SIZE);
        Headers h = new Headers();
        h.add("Content-Type", "text/plain; charset=utf-8");
        h.add("Date", "Mon, 23 Nov 2026 12:00:00 GMT");
        h.add("Via", "1.1 loomgate");
        h.add("Content-Length", "12");
        response = new ResponseHead(HttpVersion.HTTP_1_1, 200, "OK", h);
        chunkedBodies = new HttpInput(new OneMessagePerRead(chunkedBody(16, 512)), BufferPool.SIZE,
                HttpLimits.DEFAULTS);
    }

    /** A request head read from the socket in one piece and parsed (RequestHeadParser, FieldLines). */
    @Benchmark
    public RequestHead parseRequestHead() throws IOException {
        return requests.readRequestHead();
    }

    /**
     * A response head encoded into the write buffer and flushed: the buffer is taken from and given back to the
     * {@link BufferPool} as on a connection between two responses.
     */
    @Benchmark
    public long writeResponseHead() throws IOException {
        responses.writeResponseHead(response);
        responses.flush();
        return responses.sentBytes();
    }

    /** An 8 KiB chunked body (16 chunks of 512 bytes, then the last chunk) decoded to its end. */
    @Benchmark
    public long decodeChunkedBody() throws IOException {
        ChunkedInputStream body = new ChunkedInputStream(chunkedBodies, HttpLimits.DEFAULTS);
        byte[] scratch = Scratch.BYTES;
        long total = 0;
        for (int n; (n = body.read(scratch, 0, scratch.length)) >= 0; ) {
            total += n;
        }
        return total;
    }

    static byte[] chunkedBody(int chunks, int size) {
        StringBuilder sb = new StringBuilder();
        String data = "x".repeat(size);
        for (int i = 0; i < chunks; i++) {
            sb.append(Integer.toHexString(size)).append("\r\n").append(data).append("\r\n");
        }
        return sb.append("0\r\n\r\n").toString().getBytes(ISO_8859_1);
    }

    /** The relay's copy buffer, allocated once: what is measured is the decoding, not the caller's array. */
    private static final class Scratch {
        static final byte[] BYTES = new byte[4096];
    }

    /**
     * A socket whose peer sends the same message again and again, at most one message per read: each parse starts
     * on a fresh read, as on a keep-alive connection whose client waits for each answer.
     */
    static final class OneMessagePerRead extends InputStream {
        private final byte[] message;
        private int at;

        OneMessagePerRead(byte[] message) {
            this.message = message;
        }

        @Override
        public int read() {
            int b = message[at] & 0xff;
            at = (at + 1) % message.length;
            return b;
        }

        @Override
        public int read(byte[] b, int off, int len) {
            int n = Math.min(len, message.length - at);
            System.arraycopy(message, at, b, off, n);
            at = (at + n) % message.length;
            return n;
        }
    }
}
