package io.loomgate.http2;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.loomgate.http.Headers;
import io.loomgate.http.HttpLimits;
import io.loomgate.http.RequestHead;
import io.loomgate.threads.Watchdog;
import io.loomgate.threads.WatchedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * DATA that does not add up to the request's content-length is refused before any of it is buffered (RFC 9113
 * §8.1.1: the request is malformed, and an intermediary must not forward it). When the check came after buffering,
 * the stream's handler was signalled first and could read a body the frame made malformed and forward it before the
 * reader's reset landed: HostileProbeTest's "content-length below the DATA" case once got a 200 (session 43, load 15,
 * the reader slowed by debug logging). Here the stream is checked directly, with no thread race to win.
 */
class ContentLengthBeforeBufferingTest {

    /** A stream of one connection (nothing read from or written to a socket). */
    private record Fixture(Http2Connection conn, Http2Stream s) {
    }

    @Test
    void dataBeyondTheContentLengthLeavesNothingToRead() {
        Fixture f = stream(2);
        assertRefused(f, 6, true);
        assertRefused(f, 6, false);
    }

    @Test
    void anEndBeforeTheContentLengthLeavesNothingToRead() {
        assertRefused(stream(10), 3, true);
    }

    private static void assertRefused(Fixture f, int len, boolean endStream) {
        Http2Connection conn = f.conn();
        Http2Stream s = f.s();
        conn.lock.lock();
        try {
            assertThatThrownBy(() -> s.deliverData(new byte[len], 0, len, endStream))
                    .isInstanceOf(Http2Exception.class).hasMessageContaining("content-length");
            assertThat(s.body().bufferedLocked()).as("body bytes a handler could read").isZero();
            assertThat(s.remoteClosed()).as("the body looks complete to a handler").isFalse();
        } finally {
            conn.lock.unlock();
        }
    }

    private static Fixture stream(long contentLength) {
        WatchedInputStream in = new WatchedInputStream(InputStream.nullInputStream(), () -> { },
                Watchdog.driven(System::nanoTime));
        Http2Connection conn = new Http2Connection(1, in, new byte[0], new ByteArrayOutputStream(),
                Http2Settings.enabledDefaults(), HttpLimits.DEFAULTS, Duration.ofSeconds(60), Duration.ofSeconds(60),
                () -> { }, stream -> { });
        Headers h = new Headers(2);
        h.add("content-length", Long.toString(contentLength));
        return new Fixture(conn, new Http2Stream(conn, 1, 0, new RequestHead("POST", "/m", "HTTP/2.0", h),
                contentLength, false, Frames.DEFAULT_WINDOW));
    }
}
