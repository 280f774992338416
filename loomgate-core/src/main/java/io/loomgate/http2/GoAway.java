package io.loomgate.http2;

import java.io.IOException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A server connection's GOAWAY, either way, and the graceful end that follows it: once GOAWAY was sent (drain, an
 * idle timeout, a connection error) or received, no stream opens any more; those in flight finish, and when the last
 * one is done the output is half-closed, so the client sees every response and then EOF (RFC 9113 §6.8). A parked
 * connection's GOAWAY is made as bytes for the idle poller to write ({@link #whileParked}).
 *
 * <p>Guarding: {@link #sent} and {@link #outputEnded} are volatile, besides written under the connection's lock: the
 * reader asks between frames without the lock, admission and {@link #endOutputIfDone} decide under it (with the
 * stream table's emptiness). The lock is never held while a frame is written or the output half-closed.
 */
final class GoAway {
    private static final Logger log = LoggerFactory.getLogger(GoAway.class);

    private final Http2Connection conn;
    private final long id;
    /** The connection's open streams (read under its lock): the output ends once it is empty. */
    private final StreamTable<Http2Stream> streams;
    /** The last stream id the client opened (for GOAWAY's last-stream-id). */
    private final ServerFrames server;
    private final Runnable endOutput;
    /** Volatile, besides written under the lock: the reader asks between frames, without the lock. */
    private volatile boolean sent;
    private volatile boolean outputEnded;
    /**
     * Our GOAWAYs being written now; guarded by the connection's lock. The half-close waits for them: before session
     * 54, a stream's thread that saw the last stream gone between {@code sent} and the GOAWAY's write (the reader
     * queued behind that thread's frame on the writer's lock, or descheduled) half-closed the output first, the
     * GOAWAY's write failed, and the client read EOF without it (a Rapid Reset test's client, once at load ~30; 10 of
     * 10 connections with the reader held 20 ms there, 0 of 10 with this count).
     */
    private int writing;

    GoAway(Http2Connection conn, long id, StreamTable<Http2Stream> streams, ServerFrames server, Runnable endOutput) {
        this.conn = conn;
        this.id = id;
        this.streams = streams;
        this.server = server;
        this.endOutput = endOutput;
    }

    /** Whether GOAWAY was sent or received: no stream opens any more. */
    boolean sent() {
        return sent;
    }

    /** Whether the output was half-closed (after GOAWAY, every stream done). */
    boolean outputEnded() {
        return outputEnded;
    }

    /**
     * The GOAWAY (NO_ERROR) that ends a parked connection (its idle timeout, drain), as bytes for the poller to write
     * without blocking; no stream was opened after {@link ServerFrames#lastStreamId}, and none will be.
     */
    byte[] whileParked(String why) {
        sent = true; // volatile: checked under the lock by endOutputIfDone and admission
        java.io.ByteArrayOutputStream frame = new java.io.ByteArrayOutputStream(64);
        try {
            new FrameWriter(frame).goAway(server.lastStreamId(), Frames.NO_ERROR, why);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e); // a ByteArrayOutputStream does not fail
        }
        return frame.toByteArray();
    }

    /** Starts a graceful end (drain): GOAWAY now, streams in flight finish, then the connection closes. */
    void drain() {
        boolean sendNow;
        conn.lock.lock();
        try {
            sendNow = !sent;
            sent = true;
            if (sendNow) {
                writing++;
            }
        } finally {
            conn.lock.unlock();
        }
        if (sendNow) {
            write(Frames.NO_ERROR, "server shutting down");
        }
        endOutputIfDone();
    }

    /** The reader's GOAWAY: the connection ends (an error, the idle timeout). */
    void send(int code, String why) {
        conn.lock.lock();
        try {
            sent = true; // volatile: checked under the lock by endOutputIfDone and admission
            writing++;
        } finally {
            conn.lock.unlock();
        }
        write(code, why);
    }

    /** Writes our GOAWAY, counted in {@link #writing} by the caller; the half-close may come once it is out. */
    private void write(int code, String why) {
        try {
            conn.writer.goAway(server.lastStreamId(), code, why);
        } catch (IOException e) {
            log.debug("h2 connection {}: GOAWAY failed: {}", id, e.toString());
        } finally {
            conn.lock.lock();
            try {
                writing--;
            } finally {
                conn.lock.unlock();
            }
        }
    }

    /** The client sent GOAWAY: it opens no more streams; those in flight finish, then the connection closes. */
    void received() {
        sent = true; // volatile: checked under the lock by endOutputIfDone and admission
        endOutputIfDone();
    }

    /**
     * After GOAWAY, once the last stream is done and our GOAWAY is out: half-close, so the client sees every response,
     * the GOAWAY, and then EOF.
     */
    void endOutputIfDone() {
        boolean end;
        conn.lock.lock();
        try {
            end = sent && writing == 0 && streams.isEmpty() && !outputEnded;
            if (end) {
                outputEnded = true;
            }
        } finally {
            conn.lock.unlock();
        }
        if (end) {
            conn.flushOutput();
            endOutput.run();
        }
    }
}
