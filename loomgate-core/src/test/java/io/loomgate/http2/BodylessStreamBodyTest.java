package io.loomgate.http2;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.loomgate.http.Headers;
import io.loomgate.http.HttpLimits;
import io.loomgate.http.RequestHead;
import io.loomgate.threads.Watchdog;
import io.loomgate.threads.WatchedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * A stream whose HEADERS frame ended it (a GET: nearly every stream at W8 and W9) makes its request body object only
 * when something asks for it, since a body made at once is held, with its condition, for as long as the exchange
 * waits for its origin, and copied by every young collection meanwhile (session 48). What anyone sees of the body
 * made late is what the eager one showed: empty and complete, or failed after a reset. Checked on the stream
 * directly (no socket), as {@link ContentLengthBeforeBufferingTest} does.
 */
class BodylessStreamBodyTest {

    @Test
    void aStreamEndedByItsHeadersHoldsNoBodyUntilOneIsAskedFor() throws IOException {
        Fixture f = stream(true);
        Http2Stream s = f.s();
        assertThat(s.bodyMade()).as("body object made for a stream its HEADERS ended").isFalse();
        f.conn().lock.lock();
        try {
            assertThat(s.remoteClosed()).isTrue();
            assertThat(s.unreceived()).isEqualTo(-1);
            assertThat(s.grownLocked()).isZero();
        } finally {
            f.conn().lock.unlock();
        }
        assertThat(s.bodyMade()).as("made by the connection's own questions").isFalse();

        assertThat(s.body().read(new byte[8], 0, 8)).isEqualTo(-1);
        assertThat(s.body().isComplete()).isTrue();
        assertThat(s.body().trailers().isEmpty()).isTrue();
        assertThat(s.bodyMade()).isTrue();
    }

    @Test
    void aResetStreamsLateBodyFailsAsTheEagerOneDid() {
        Fixture f = stream(true);
        Http2Stream s = f.s();
        f.conn().lock.lock();
        try {
            s.markReset("client reset the stream");
            assertThat(s.remoteClosed()).isTrue();
        } finally {
            f.conn().lock.unlock();
        }
        assertThat(s.body().isComplete()).isFalse();
        assertThatThrownBy(() -> s.body().read(new byte[8], 0, 8)).isInstanceOf(IOException.class)
                .hasMessageContaining("client reset the stream");
    }

    @Test
    void aStreamWithABodyHasItFromTheStart() {
        Fixture f = stream(false);
        Http2Stream s = f.s();
        assertThat(s.bodyMade()).isTrue();
        f.conn().lock.lock();
        try {
            assertThat(s.remoteClosed()).isFalse();
        } finally {
            f.conn().lock.unlock();
        }
    }

    private record Fixture(Http2Connection conn, Http2Stream s) {
    }

    private static Fixture stream(boolean endStream) {
        WatchedInputStream in = new WatchedInputStream(InputStream.nullInputStream(), () -> { },
                Watchdog.driven(System::nanoTime));
        Http2Connection conn = new Http2Connection(1, in, new byte[0], new ByteArrayOutputStream(),
                Http2Settings.enabledDefaults(), HttpLimits.DEFAULTS, Duration.ofSeconds(60), Duration.ofSeconds(60),
                () -> { }, stream -> { });
        return new Fixture(conn, new Http2Stream(conn, 1, 0, new RequestHead(endStream ? "GET" : "POST", "/m", "HTTP/2.0",
                new Headers(0)), -1, endStream, Frames.DEFAULT_WINDOW));
    }
}
