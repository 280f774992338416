package io.loomgate.http2;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

/**
 * The server connection's write batch waits two rounds of the scheduler's queue, so a stream that a poller running as
 * a virtual thread wakes during the first round still joins it (the epoll transport at W8: one send for several of a
 * connection's answers, which come back together). One carrier makes the order exact, hence a JVM of its own
 * ({@code jdk.virtualThreadScheduler.parallelism=1} is fixed at start): the stream that promised the write yields,
 * the "poller" polls again and wakes the connection's second stream, which must add its frame before the batch is
 * written. With one yield (before stop 45) the batch was written just before the woken stream ran: two writes.
 */
class FrameBatchTakesStreamsWokenMeanwhileTest {

    @Test
    void aStreamWokenWhileTheBatchWaitsJoinsIt() throws Exception {
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        List<String> cmd = new ArrayList<>(List.of(java.toString(), "-cp", System.getProperty("java.class.path"),
                "-Djdk.virtualThreadScheduler.parallelism=1", "-Djdk.virtualThreadScheduler.maxPoolSize=1",
                WokenStreamProbe.class.getName()));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out;
        try (InputStream in = p.getInputStream()) {
            boolean ended = p.waitFor(60, TimeUnit.SECONDS);
            if (!ended) {
                p.destroyForcibly();
            }
            out = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            assertThat(ended).as("the probe ended: %s", out).isTrue();
        }
        assertThat(p.exitValue()).as("the probe's exit: %s", out).isZero();
        assertThat(out).contains("writes 1, bytes 20");
    }

    /**
     * The child JVM: a connection's two streams wait for their origins' answers; a "poller" that polls as the epoll
     * transport's busy loop does (a virtual thread: each poll wakes what became ready, then it yields) wakes the first
     * stream in one poll and the second in the next. Prints how many writes reached the socket's stream, and bytes.
     */
    static final class WokenStreamProbe {
        public static void main(String[] args) throws Exception {
            CountingOut out = new CountingOut();
            FrameWriter writer = new FrameWriter(out, true);
            byte[] one = {1};
            Thread[] streams = new Thread[2];
            for (int i = 0; i < streams.length; i++) {
                int id = 2 * i + 1;
                streams[i] = Thread.ofVirtual().unstarted(() -> {
                    LockSupport.park(); // until its origin's answer came: the poller's unpark
                    try {
                        writer.data(id, one, 0, 1, true); // the first promises the batch and yields
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                });
            }
            Thread poller = Thread.ofVirtual().unstarted(() -> {
                for (int poll = 0; poll < 4; poll++) {
                    if (poll < streams.length) {
                        LockSupport.unpark(streams[poll]);
                    }
                    Thread.yield(); // the threads it woke run before its next poll
                }
            });
            Thread.ofVirtual().start(() -> {
                for (Thread t : streams) {
                    t.start();
                }
                Thread.yield(); // both streams park first
                poller.start();
            }).join();
            poller.join();
            for (Thread t : streams) {
                t.join();
            }
            System.out.println("writes " + out.writes + ", bytes " + out.bytes.size());
            System.exit(0);
        }
    }

    /** Counts the writes that reach it, as a socket's stream would see them. */
    private static final class CountingOut extends OutputStream {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        volatile int writes;

        @Override
        public void write(int b) {
            writes++;
            bytes.write(b);
        }

        @Override
        public synchronized void write(byte[] b, int off, int len) {
            writes++;
            bytes.write(b, off, len);
        }
    }
}