package io.loomgate.upstream;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.http2.Http2ClientConnection;
import io.loomgate.server.H2cWire;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A connection lingering after our GOAWAY for an error (its origin flooded) that the pool has already dropped from
 * its list (a dead connection leaves it at the next reservation) is ended by the pool's drain (shut-down, a reload
 * that dropped the endpoint) as a listed one is, not only by the linger's own bound (10 s in all). The origin here
 * goes on writing a PING every 100 ms and never closes, so only the gateway can end the linger.
 */
class Http2PoolLingerDrainTest {
    private static final long DEADLINE = TimeUnit.SECONDS.toNanos(10);

    @Test
    void aDrainEndsTheLingerOfAConnectionThePoolHasDropped() throws Exception {
        CountDownLatch flood = new CountDownLatch(1);
        CompletableFuture<Long> firstEnded = new CompletableFuture<>();
        try (ServerSocket server = new ServerSocket(0, 10, InetAddress.getLoopbackAddress())) {
            Thread.ofVirtual().start(() -> serve(server, flood, firstEnded));
            Upstreams ups = Upstreams.create(List.of(new UpstreamDefinition("h2",
                    List.of(new Endpoint("127.0.0.1", server.getLocalPort(), false, true)), PoolSettings.DEFAULTS)),
                    PoolListener.NOOP);
            boolean closed = false;
            try {
                Http2Pool pool = ups.get("h2").members().get(0).pool().http2();
                Http2Pool.Lease first = (Http2Pool.Lease) pool.acquire(System.nanoTime() + DEADLINE);
                Http2ClientConnection c = first.connection();
                flood.countDown();
                long until = System.nanoTime() + DEADLINE;
                while (!c.isLingering() && System.nanoTime() - until < 0) {
                    Thread.sleep(5); // polled with a deadline: the reader meets the flood's bound, then lingers
                }
                assertThat(c.isLingering()).as("the flooded connection lingers").isTrue();
                c.unreserve();
                Http2Pool.Lease second = (Http2Pool.Lease) pool.acquire(System.nanoTime() + DEADLINE);
                assertThat(second.connection()).as("the next lease is on a new connection").isNotSameAs(c);
                assertThat(pool.connectionCount()).as("the lingering one left the list").isEqualTo(1);
                second.connection().unreserve();
                long drained = System.nanoTime();
                ups.close();
                closed = true;
                long ended = firstEnded.get(20, TimeUnit.SECONDS);
                assertThat(Duration.ofNanos(ended - drained)).as("the linger ended by the drain, not its own bound")
                        .isLessThan(Duration.ofSeconds(3));
            } finally {
                if (!closed) {
                    ups.close();
                }
            }
        }
    }

    /**
     * The origin: SETTINGS on every connection; on the first, once told, 3,000 PINGs in one write, then a PING every
     * 100 ms until a write fails: the gateway closed the socket ({@code firstEnded}: when).
     */
    private static void serve(ServerSocket server, CountDownLatch flood, CompletableFuture<Long> firstEnded) {
        for (int n = 1; !server.isClosed(); n++) {
            try {
                Socket s = server.accept();
                boolean first = n == 1;
                Thread.ofVirtual().start(() -> connection(s, first, flood, firstEnded));
            } catch (IOException e) {
                return;
            }
        }
    }

    private static void connection(Socket s, boolean first, CountDownLatch flood,
                                   CompletableFuture<Long> firstEnded) {
        try (s) {
            s.setSoTimeout(30_000);
            DataInputStream in = new DataInputStream(s.getInputStream());
            OutputStream out = s.getOutputStream();
            in.readFully(new byte[24]); // the preface
            out.write(H2cWire.frame(H2cWire.SETTINGS, 0, 0, new byte[0]));
            out.flush();
            if (!first) {
                in.transferTo(OutputStream.nullOutputStream());
                return;
            }
            Thread.ofVirtual().start(() -> {
                try {
                    // The linger's half-close is an EOF here: the end that counts is the socket's close, which fails
                    // the writes below.
                    in.transferTo(OutputStream.nullOutputStream());
                } catch (IOException e) {
                    // reset: the writes fail too
                }
            });
            flood.await(20, TimeUnit.SECONDS);
            ByteArrayOutputStream pings = new ByteArrayOutputStream();
            for (int i = 0; i < 3000; i++) {
                pings.write(H2cWire.frame(H2cWire.PING, 0, 0, new byte[8]));
            }
            out.write(pings.toByteArray());
            out.flush();
            while (!firstEnded.isDone()) {
                Thread.sleep(100); // the cell's shape: an origin that keeps the linger's reads busy
                out.write(H2cWire.frame(H2cWire.PING, 0, 0, new byte[8]));
                out.flush();
            }
        } catch (IOException | InterruptedException e) {
            firstEnded.complete(System.nanoTime());
        }
    }
}
