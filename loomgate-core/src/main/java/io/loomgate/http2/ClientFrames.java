package io.loomgate.http2;

import java.io.IOException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What an {@link Http2ClientConnection} (the client role, to an origin) does with the frames its {@link FrameReader}
 * reads: responses (heads, bodies, trailers) delivered to the streams it opened, resets and stream errors ending
 * them, the origin's SETTINGS and window updates applied, PINGs answered and the keep-alive's acknowledged, and
 * GOAWAY turned into refused streams (those above its last stream id, safe to send again); frames that cost work
 * without carrying a response counted against {@link OriginFloods}. The stream table,
 * reservations, stream ids and the connection's end are the connection's.
 *
 * <p>Reader thread only; what it shares with request threads is guarded by the connection's lock, as the
 * connection's class comment says.
 */
final class ClientFrames implements FrameReader.Handler<ResponseFields> {
    private static final Logger log = LoggerFactory.getLogger(ClientFrames.class);

    private final Http2ClientConnection conn;

    ClientFrames(Http2ClientConnection conn) {
        this.conn = conn;
    }

    /** Streams are ours to open, odd, in order; an even one would be pushed, and push is off. */
    @Override
    public boolean isIdle(int stream) {
        conn.lock.lock();
        try {
            return (stream & 1) == 0 || stream >= conn.nextStreamId;
        } finally {
            conn.lock.unlock();
        }
    }

    @Override
    public void data(int stream, byte[] payload, int off, int len, boolean endStream)
            throws Http2Exception, IOException {
        if (len == 0 && !endStream) {
            conn.floods.count("empty DATA"); // carries nothing and ends nothing (CVE-2019-9518)
        }
        boolean done;
        int paddingCredit;
        conn.lock.lock();
        try {
            Http2ClientStream s = conn.streams.get(stream);
            if (s == null) {
                // Reset by us a moment ago: frames in flight are expected (RFC 9113 §6.4). Its window is gone
                // with it.
                return;
            }
            paddingCredit = s.deliverDataLocked(payload, off, len, endStream);
            done = s.closedBothLocked();
            if (done) {
                conn.removeLocked(s);
            }
        } finally {
            conn.lock.unlock();
        }
        if (paddingCredit > 0) {
            conn.writer.windowUpdate(stream, paddingCredit);
        }
        if (done) {
            conn.afterRemoval();
        }
    }

    @Override
    public ResponseFields fieldsFor(int stream, int blockFields) {
        Http2ClientStream s = conn.stream(stream);
        return new ResponseFields(s != null && s.finalHeadSeen(), blockFields);
    }

    /** A whole response header block: the head (interim or final) or the trailers of its stream. */
    @Override
    public void headers(int stream, ResponseFields fields, boolean withinLimit, boolean endStream,
                        boolean selfDependent) throws Http2Exception {
        Http2ClientStream s = conn.stream(stream);
        if (s == null) {
            // A stream we reset: its head is of no use, but the block had to be decoded. One in flight as we
            // cancelled is a race; a stream of them is work for nothing.
            conn.floods.closedStreamFrame("HEADERS on closed streams");
            return;
        }
        if (!withinLimit) {
            throw Http2Exception.stream(stream, Frames.PROTOCOL_ERROR, "response head over "
                    + conn.maxHeaderListSize + " bytes");
        }
        if (selfDependent) {
            throw Http2Exception.stream(stream, Frames.PROTOCOL_ERROR, "stream depends on itself"
                    + " (RFC 9113 §5.3.1)");
        }
        boolean done;
        conn.lock.lock();
        try {
            s.deliverBlockLocked(fields, endStream);
            done = s.closedBothLocked();
            if (done) {
                conn.removeLocked(s);
            }
        } finally {
            conn.lock.unlock();
        }
        if (done) {
            conn.afterRemoval();
        }
    }

    @Override
    public void rstStream(int stream, int code) throws Http2Exception {
        Http2ClientStream s;
        conn.lock.lock();
        try {
            s = conn.streams.get(stream);
            if (s != null) {
                conn.removeLocked(s);
                s.resetByOriginLocked(code);
                conn.sendWindow.wake();
            }
        } finally {
            conn.lock.unlock();
        }
        if (s == null) {
            conn.floods.closedStreamFrame("RST_STREAM on closed streams");
            return;
        }
        conn.afterRemoval();
    }

    @Override
    public void settings(byte[] payload) throws Http2Exception, IOException {
        conn.floods.count("SETTINGS");
        int concurrentBefore = conn.maxConcurrentStreams();
        conn.writer.applyAndAcknowledge(() -> conn.peer.apply(payload, conn::openWindows));
        if (conn.maxConcurrentStreams() > concurrentBefore) {
            conn.onCapacity.run();
        }
    }

    /** Counted as PING ACKs are: an origin's ACKs past the SETTINGS we sent are a flood like any other. */
    @Override
    public void settingsAck() throws Http2Exception {
        conn.floods.count("SETTINGS ACK");
    }

    @Override
    public void ping(boolean ack, byte[] payload) throws Http2Exception, IOException {
        conn.floods.count("PING");
        if (!ack) {
            conn.writer.pingAck(payload);
            return;
        }
        conn.lock.lock();
        try {
            if (conn.pings != null) {
                conn.pings.ackedLocked();
            }
        } finally {
            conn.lock.unlock();
        }
    }

    /**
     * No new streams here. Streams above the origin's last stream id were never processed: they fail as refused
     * (safe to send again); the others finish, then the connection closes (RFC 9113 §6.8).
     */
    @Override
    public void goAway(int last, int code, byte[] payload) {
        log.debug("h2 upstream {}: GOAWAY last stream {} {}", conn.name, last, Frames.errorName(code));
        boolean calmDown;
        conn.lock.lock();
        try {
            calmDown = code == Frames.ENHANCE_YOUR_CALM && conn.pings != null && conn.pings.pingedLocked();
            conn.goingAway = true;
            conn.verdict.goAwayReadLocked(last);
            for (Http2ClientStream s : conn.streams.values()) {
                if (s.id() > last) {
                    conn.removeLocked(s);
                    s.failLocked(new Http2StreamException("origin sent GOAWAY (" + Frames.errorName(code)
                            + ") before processing stream " + s.id(), Frames.REFUSED_STREAM, true));
                }
            }
            conn.sendWindow.wake();
        } finally {
            conn.lock.unlock();
        }
        if (calmDown) {
            conn.pings.tooManyPings(payload);
        }
        conn.afterRemoval();
    }

    @Override
    public void windowUpdate(int stream, int increment) throws Http2Exception {
        if (stream == 0) {
            conn.sendWindow.connectionUpdate(increment);
        } else {
            conn.lock.lock();
            try {
                Http2ClientStream s = conn.streams.get(stream);
                if (s != null) {
                    conn.sendWindow.streamUpdate(s.sendWindow, stream, increment);
                }
            } finally {
                conn.lock.unlock();
            }
        }
        conn.floods.windowUpdate();
    }

    /** Each is answered with RST_STREAM: a stream of them (WINDOW_UPDATE of 0, say) is work for nothing. */
    @Override
    public void streamError(int stream, int code, String why) throws Http2Exception, IOException {
        conn.floods.count("stream errors");
        conn.resetFromReader(stream, code, why);
    }

    /** PRIORITY is ignored (RFC 9113 §5.3.2), and an origin has nothing to prioritise: only work. */
    @Override
    public void priority(int stream) throws Http2Exception {
        conn.floods.count("PRIORITY");
    }
}
