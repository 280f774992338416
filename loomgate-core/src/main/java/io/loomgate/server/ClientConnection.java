package io.loomgate.server;

import io.loomgate.http.BufferPool;
import io.loomgate.http.Headers;
import io.loomgate.http.HttpLimits;
import io.loomgate.http.RequestHead;
import io.loomgate.http1.BodyFraming;
import io.loomgate.http1.HttpInput;
import io.loomgate.http1.HttpOutput;
import io.loomgate.http1.HttpParseException;
import io.loomgate.http2.Http2Connection;
import io.loomgate.http2.Http2Settings;
import io.loomgate.http2.Http2Stream;
import io.loomgate.threads.Deadline;
import io.loomgate.threads.NanoClock;
import io.loomgate.threads.Unexpected;
import io.loomgate.threads.Watchdog;
import io.loomgate.threads.WatchedInputStream;
import io.loomgate.threads.WatchedOutputStream;
import io.loomgate.tls.ServerTls;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.function.Consumer;
import javax.net.ssl.SSLSocket;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One client connection and its keep-alive loop: wait for a request (idle timeout, no buffers held), read its head
 * (header deadline), hand it to the handler, make sure the request body was consumed, and go round again while the
 * connection may be reused.
 *
 * <p>Threading: the socket, reader, writer and request count are plain fields changed only by the connection's own
 * thread, the one running {@link #run()}. The only way in from another thread is {@link #closeIfIdle()} and
 * {@link #abort()} for drain, guarded by {@link #closeLock} and the volatile {@link #draining} flag.
 *
 * <p>TLS: with a {@link ServerTls}, the connection's first act is the handshake, bounded by the header timeout (the
 * listener's watchdog closes a connection whose handshake is overdue, see {@link #handshake}). The
 * plain socket stays the one that is cut, shut down and closed from other threads; the TLS socket is only read and
 * written by the connection's own thread.
 *
 * <p>Idle keep-alive connections ({@link IdleConnections}): on a socket accepted as a channel, run on a virtual
 * thread, a connection that has no next request within the hand-off delay is parked in the listener's selector and
 * its thread ends (a parked virtual thread keeps a stack chunk of about 5 KB); when bytes arrive, {@link #run()} runs
 * again on a new thread and the loop goes on where it stopped. While parked, the poller owns the connection: its
 * streams and deadlines are dropped (remade on resume) and {@link #endParked()} is how it ends.
 *
 * <p>An idle h2c connection parks the same way ({@link Http2Connection.Parking}: no stream open, nothing in flight,
 * quiet for the hand-off delay) and resumes into {@link Http2Connection#resume}; its {@link Http2Connection} (HPACK
 * table, settings, windows) and its output stream, which the frame writer holds, stay as they are. While parked, drain
 * and the idle timeout end it with a GOAWAY written by the poller ({@link #endParked()}).
 *
 * <p>TLS connections park too (the listener drives the provider's engine over the accepted channel): the TLS
 * socket's state stays with the connection, the selector watches the channel, and a GOAWAY while parked goes through
 * the engine.
 */
final class ClientConnection implements Runnable {
    private static final Logger log = LoggerFactory.getLogger(ClientConnection.class);
    /** How much of an unread request body is read and thrown away to keep a connection; beyond it, close. */
    private static final long MAX_DRAIN_BYTES = 256 * 1024;

    private final long id;
    /** The accepted TCP socket: closed (or its input shut down) to end the connection from any thread. */
    private final Socket raw;
    private final ServerTls tls;
    /** What the connection reads and writes: {@link #raw}, or the TLS socket layered over it. Own thread only. */
    private Socket socket;
    private TlsInfo tlsInfo;
    /** What the write deadline is armed for, for the log when it expires; written by the connection's thread. */
    private volatile String overdue = "write to the client";
    private final ListenerSettings settings;
    private final ExchangeHandler handler;
    private final ConnectionListener events;
    /** Told once when the connection ends (the listener's bookkeeping: one shared instance, not one per connection). */
    private final Consumer<ClientConnection> onClose;
    private final Watchdog reads;
    private final Watchdog writes;
    /** Where idle connections park; null when this connection keeps its thread while idle. */
    private final IdleConnections idleConnections;
    /** How long the first idle wait blocks on the thread before the connection parks. */
    private final long handoffNanos;
    private static final byte[] HTTP2_PREFACE_START = Http2Settings.prefaceStart();
    private static final VarHandle CLOSED;
    private static final VarHandle ENDED;
    private static final VarHandle PARK_STATE;
    /** Park states: a thread of its own runs the connection (also before the first park, and when ended). */
    static final int RUNNING = 0;
    /** Handed to the idle poller: queued or registered with its selector, no thread. */
    static final int PARKED = 1;
    /** Taken off the selector to run again on a new thread (the poller's until that thread starts). */
    static final int RESUMING = 2;
    /** Taken off the selector to be ended (idle timeout, drain, the listener's end, a failure). */
    static final int CLOSING = 3;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            CLOSED = lookup.findVarHandle(ClientConnection.class, "closed", boolean.class);
            ENDED = lookup.findVarHandle(ClientConnection.class, "ended", boolean.class);
            PARK_STATE = lookup.findVarHandle(ClientConnection.class, "parkState", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private volatile boolean draining;
    private volatile Http2Connection h2;
    private volatile boolean idle = true;
    /** Set once, by whoever closes first (CAS through {@link #CLOSED}). */
    @SuppressWarnings("unused")
    private volatile boolean closed;
    /** Set once, by whoever ends the connection first (CAS through {@link #ENDED}): its events and permit, once. */
    @SuppressWarnings("unused")
    private volatile boolean ended;
    /**
     * {@link #RUNNING}, {@link #PARKED}, {@link #RESUMING} or {@link #CLOSING} (CAS through {@link #PARK_STATE}).
     * Whoever moves a connection out of PARKED owns it from then on; every other party loses the CAS and leaves it
     * alone, so a connection that is both readable and evicted (or expired, or shut down) is resumed or ended once.
     */
    @SuppressWarnings("unused")
    private volatile int parkState;
    /** When a parked connection's idle timeout passes (on the read watchdog's clock); read by the poller. */
    private long parkedUntil;
    /** The selection key while registered with the idle poller's selector; the poller's thread only. */
    SelectionKey key;
    /** Whether the previous request came within the hand-off delay (see awaitOrPark). Own thread only. */
    private boolean busy;
    /** Whether the connection was resumed after a park and has not waited since. Own thread only. */
    private boolean afterPark;
    /** Whether {@link #run()} ran before: a later run is a resumption after parking. Own thread only. */
    private boolean started;
    private InetSocketAddress remote;
    private InetSocketAddress local;
    private WatchedInputStream socketIn;
    /** Armed around every write to the client; expires when the client stopped reading. */
    private Deadline writeDeadline;
    private HttpInput in;
    private HttpOutput out;
    private WatchedOutputStream rawOut;
    private int requests;

    /**
     * @param reads  enforces the read deadlines (idle, head, body reads)
     * @param writes enforces the write deadline: a write blocked longer than the read timeout aborts the connection
     */
    ClientConnection(long id, Socket socket, ListenerSettings settings, ExchangeHandler handler,
                     ConnectionListener events, Consumer<ClientConnection> onClose, Watchdog reads, Watchdog writes) {
        this(id, socket, null, settings, handler, events, onClose, reads, writes, null, Duration.ZERO);
    }

    /**
     * @param idleConnections where the connection parks when idle longer than {@code handoff}; null never to park
     *                        (a connection not accepted as a channel never parks)
     */
    ClientConnection(long id, Socket socket, ServerTls tls, ListenerSettings settings, ExchangeHandler handler,
                     ConnectionListener events, Consumer<ClientConnection> onClose, Watchdog reads, Watchdog writes,
                     IdleConnections idleConnections, Duration handoff) {
        this.id = id;
        this.raw = socket;
        this.socket = socket;
        this.tls = tls;
        this.settings = settings;
        this.handler = handler;
        this.events = events;
        this.onClose = onClose;
        this.reads = reads;
        this.writes = writes;
        boolean canPark = idleConnections != null && socket.getChannel() != null
                && handoff.compareTo(settings.idleTimeout()) < 0;
        this.idleConnections = canPark ? idleConnections : null;
        this.handoffNanos = handoff.toNanos();
    }

    /** Serves the connection; after a park, runs again on a new thread and carries on where it stopped. */
    @Override
    public void run() {
        boolean resumed = started;
        started = true;
        if (!resumed) {
            remote = (InetSocketAddress) raw.getRemoteSocketAddress();
            local = (InetSocketAddress) raw.getLocalSocketAddress();
            events.connectionOpened(remote);
        }
        boolean served = false;
        boolean handedOff = false;
        try {
            // Inside the try: whatever fails from here on (even an Error while the name is built) ends the
            // connection below, so a resumed connection can never be lost between the poller and this thread.
            Thread.currentThread().setName(
                    "conn-" + id + "-" + remote.getAddress().getHostAddress() + ":" + remote.getPort());
            if (!resumed) {
                raw.setTcpNoDelay(true);
                // One deadline for everything this thread sends: the TLS handshake (header timeout), each write to
                // the client and the close_notify (read timeout). Its expiry aborts the connection.
                writeDeadline = writes.deadline(this::abortOverdueWrite);
                if (tls != null && !handshake()) {
                    return;
                }
            } else if (h2 == null) {
                writeDeadline = writes.deadline(this::abortOverdueWrite);
            }
            if (resumed && h2 != null) {
                handedOff = resumeHttp2();
            } else {
                openStreams();
                handedOff = serve();
            }
            served = !handedOff;
        } catch (IOException e) {
            log.debug("connection {} ended: {}", id, e.toString());
        } catch (RuntimeException e) {
            Unexpected.LOG.error("connection {}: unexpected failure", id, e);
        } finally {
            if (!handedOff) {
                try {
                    if (served && socket instanceof SSLSocket s) {
                        sendCloseNotify(s);
                    }
                    close();
                    WatchedInputStream watched = socketIn;
                    if (watched != null) {
                        watched.close(); // also when drain closed the socket before this thread made the stream
                    }
                    Deadline d = writeDeadline;
                    if (d != null) {
                        d.close();
                    }
                } finally {
                    finish();
                }
            }
        }
    }

    /**
     * The connection's bookkeeping end, exactly once whoever calls it and however often (its own thread, the idle
     * poller, both after a race): the closed event and the listener's permit.
     */
    private void finish() {
        if (!ENDED.compareAndSet(this, false, true)) {
            return;
        }
        try {
            events.connectionClosed(remote, requests);
        } finally {
            onClose.accept(this);
        }
    }

    /** The watched streams over the socket; made at the start and again on every resumption after a park. */
    private void openStreams() throws IOException {
        // The channel (plain sockets only) lets bulk bodies move through direct buffers (BodyRelay, W4). Never a TLS
        // connection's: JSSE's layered socket answers getChannel() with the raw socket's channel, and bytes written
        // there would bypass the encryption. The TLS listener accepts classic sockets, which have none, so this
        // only matters if it ever accepts channels (TlsTerminationTest sends a bulk body through it).
        SocketChannel channel = tls == null ? socket.getChannel() : null;
        socketIn = new WatchedInputStream(socket.getInputStream(), channel, raw::shutdownInput, reads);
        rawOut = new WatchedOutputStream(socket.getOutputStream(), channel, writeDeadline,
                settings.readTimeout().toNanos());
        in = new HttpInput(socketIn, socketIn.directReader(), BufferPool.SIZE, settings.limits());
        out = new HttpOutput(rawOut, rawOut.directWriter(), BufferPool.SIZE);
    }

    /**
     * Runs the TLS handshake within the header timeout; false when it failed (garbage, an old protocol, no client
     * certificate where one is needed, or too slow), which ends the connection quietly: one debug line, no answer
     * (there is no TLS channel to answer on), nobody else disturbed.
     */
    private boolean handshake() {
        overdue = "TLS handshake";
        writeDeadline.armAfter(settings.headerTimeout().toNanos());
        try {
            SSLSocket s = tls.handshake(raw);
            socket = s;
            tlsInfo = TlsInfo.of(s);
            return true;
        } catch (IOException | RuntimeException e) {
            log.debug("connection {}: TLS handshake failed: {}", id, e.toString());
            return false;
        } finally {
            writeDeadline.disarm();
            overdue = "write to the client";
        }
    }

    /** The TLS close_notify alert, so the client knows the response ended where the connection did. */
    private void sendCloseNotify(SSLSocket s) {
        writeDeadline.armAfter(settings.readTimeout().toNanos());
        try {
            s.close();
        } catch (IOException e) {
            log.debug("connection {}: TLS close: {}", id, e.toString());
        } finally {
            writeDeadline.disarm();
        }
    }

    /** The keep-alive loop; returns true when the connection was handed to the idle poller (thread done). */
    private boolean serve() throws IOException {
        long headerNanos = settings.headerTimeout().toNanos();
        while (!draining) {
            idle = true;
            if (in.buffered() == 0) {
                out.releaseBuffer();
                // Only virtual threads park: the platform models are the classic thread-per-connection baseline.
                Boolean next = idleConnections != null && Thread.currentThread().isVirtual() ? awaitOrPark()
                        : Boolean.valueOf(awaitNextRequest(settings.idleTimeout(), false));
                if (next == null) {
                    return true;
                }
                if (!next) {
                    return false;
                }
            }
            idle = false;
            if (requests == 0 && settings.http2().enabled() && startsWithHttp2Preface(headerNanos)) {
                return serveHttp2();
            }
            if (draining) {
                // Drain began while this request's first bytes arrived: answer it, then close.
                log.debug("connection {} got a request while draining", id);
            }
            RequestHead head = readHead(headerNanos);
            if (head == null) {
                return false;
            }
            socketIn.setReadTimeout(settings.readTimeout());
            if (!serveOne(head)) {
                return false;
            }
            requests++;
        }
        return false;
    }

    /**
     * Waits on this thread for the next request's first bytes; false when the client closed or the wait timed out.
     * {@code buffered}: wait holding a read buffer, so one read takes the whole request (a busy connection, whose
     * wait is short); otherwise wait for one byte holding none (an idle connection may wait long).
     */
    private boolean awaitNextRequest(Duration timeout, boolean buffered) throws IOException {
        socketIn.setReadTimeout(timeout);
        try {
            // false: the client closed between requests, the normal end of keep-alive
            return buffered ? in.awaitDataBuffered() : in.awaitData();
        } catch (SocketTimeoutException e) {
            log.debug("connection {} idle for {}, closing", id, timeout);
            return false;
        }
    }

    /**
     * The idle wait of a connection that may park. Returns true (a request is coming), false (the client closed or
     * the idle timeout passed) or null (parked: this thread is done).
     *
     * <p>Two kinds of wait, because a wait that can end softly after the hand-off delay needs a timed park, and a
     * timed park arms and cancels a JDK timer: measured at W2, 1.9 more futex calls per request when every wait was
     * timed. So a <em>busy</em> connection, one whose previous request came within the hand-off delay of the response
     * before it, waits as before: untimed, under the read watchdog's idle deadline, without parking. Every other wait
     * (after a connection's first request, after a pause longer than the hand-off delay, after a resumption) blocks
     * for the hand-off delay, then parks. What that costs: a connection that falls silent right after a quick
     * exchange keeps its thread until its next request or the idle timeout, as every connection did before; its next
     * wait after that may park. (A shorter "busy" mark, a few milliseconds, was tried: on a loaded core the time
     * between a response and the next request's bytes stretches past it and the timers came back.)
     */
    private Boolean awaitOrPark() throws IOException {
        NanoClock clock = reads.clock();
        long start = clock.nanoTime();
        if (busy) {
            boolean next = awaitNextRequest(settings.idleTimeout(), true);
            busy = clock.nanoTime() - start < handoffNanos;
            return next;
        }
        // SO_TIMEOUT, not the watchdog: a watchdog's expiry cuts the input for good, this wait must end softly.
        socketIn.setReadTimeout(Duration.ZERO);
        raw.setSoTimeout((int) Math.max(1, handoffNanos / 1_000_000));
        try {
            boolean next = in.awaitData();
            // The wait before a connection's first request says nothing about how it is used, and the first wait
            // after a resumption ends at once on bytes that came while parked: neither is learned from.
            busy = requests > 0 && !afterPark;
            afterPark = false;
            return next;
        } catch (SocketTimeoutException e) {
            // quiet for the hand-off delay: park
        } finally {
            raw.setSoTimeout(0);
        }
        return park(start + settings.idleTimeout().toNanos()) ? null : Boolean.FALSE;
    }

    /**
     * Hands the idle connection to the poller: no thread, no streams, no deadlines while parked. False when it
     * could not (the listener is closing, or drain began): the caller ends the connection.
     */
    private boolean park(long idleEnd) throws IOException {
        if (draining) {
            return false;
        }
        socketIn.close();
        writeDeadline.close();
        socketIn = null;
        writeDeadline = null;
        in = null;
        out = null;
        rawOut = null;
        raw.getChannel().configureBlocking(false);
        parkedUntil = idleEnd;
        afterPark = true;
        parkState = PARKED;
        // Drain sets draining, then looks at the park state; this sets PARKED, then looks at draining: one of the two
        // sees the other (both volatile), so a connection parking as drain begins is closed by one of them.
        if (draining || !idleConnections.park(this)) {
            if (!PARK_STATE.compareAndSet(this, PARKED, RUNNING)) {
                return true; // the poller took it meanwhile (drain's eviction): it ends it, this thread is done
            }
            raw.getChannel().configureBlocking(true);
            return false;
        }
        return true;
    }

    /**
     * The poller takes a parked connection off the selector, to {@link #RESUMING} or {@link #CLOSING}; false when
     * another party took it first (or it is not parked), and then the caller must leave it alone.
     */
    boolean takeOff(int next) {
        return PARK_STATE.compareAndSet(this, PARKED, next);
    }

    /** The channel a parked connection waits on. */
    SocketChannel channel() {
        return raw.getChannel();
    }

    /** When a parked connection's idle timeout passes, on the read watchdog's clock. */
    long parkedUntil() {
        return parkedUntil;
    }

    /**
     * The end of a parked connection (idle timeout, drain, the listener closing, a channel closed meanwhile), on the
     * poller's thread: the same close and the same events, once, as a connection ending on its own thread.
     */
    void endParked() {
        parkState = CLOSING;
        try {
            Http2Connection c = h2;
            if (c != null) {
                goAwayWhileParked(c);
            }
            close();
        } finally {
            finish();
        }
    }

    /**
     * An HTTP/2 connection's end while parked is announced with GOAWAY (RFC 9113 §6.8): a small write into the empty
     * send buffer of a non-blocking channel, so the poller never blocks; if it does not fit, the close alone says it.
     */
    private void goAwayWhileParked(Http2Connection c) {
        try {
            byte[] frame = c.goAwayWhileParked(draining ? "server shutting down" : "idle timeout");
            if (tls == null) {
                raw.getChannel().write(ByteBuffer.wrap(frame));
            } else {
                // One TLS record through the engine; on the non-blocking channel a write that would block throws
                // (EngineChannel) instead of waiting.
                socket.getOutputStream().write(frame);
            }
        } catch (IOException | RuntimeException e) {
            log.debug("connection {}: GOAWAY while parked not sent: {}", id, e.toString());
        }
    }

    /** The poller gives a {@link #RESUMING} connection back: a new thread runs it next. */
    void leavePoller() {
        parkState = RUNNING;
    }

    /** Whether the connection is handed to the idle poller now (for tests and drain). */
    boolean isParked() {
        return parkState == PARKED;
    }

    /** Whether the first bytes are the HTTP/2 preface's first line (prior knowledge, RFC 9113 §3.3). */
    private boolean startsWithHttp2Preface(long headerNanos) throws IOException {
        socketIn.setPhaseTimeout(headerNanos, "connection preface");
        try {
            return in.startsWith(HTTP2_PREFACE_START);
        } catch (SocketTimeoutException e) {
            return false; // what arrived is read as an HTTP/1.1 head, which answers 408 in its turn
        } finally {
            socketIn.clearPhaseDeadline();
        }
    }

    /**
     * The connection speaks HTTP/2 from here on: one {@link Http2Connection} reads its frames on this thread and
     * runs each stream's exchange on a virtual thread of its own, through the same handler. Returns true when it was
     * parked (this thread is done), false when it ended.
     */
    private boolean serveHttp2() throws IOException {
        out.releaseBuffer();
        byte[] alreadyRead = in.takeBuffered();
        in = null; // HTTP/1.1's buffers are done with: the frame reader has its own
        out = null;
        // Only virtual threads park: the platform models are the classic thread-per-connection baseline.
        Http2Connection.Parking parking = idleConnections != null && Thread.currentThread().isVirtual()
                ? new Http2Parking() : null;
        Http2Connection c = new Http2Connection(id, socketIn, alreadyRead, rawOut, settings.http2(),
                settings.limits(), settings.idleTimeout(), settings.readTimeout(),
                this::shutdownOutput, this::serveStream, parking);
        h2 = c;
        if (draining) {
            c.drain();
        }
        return c.serve();
    }

    /** An h2c connection resumed after a park: a new input, the same HTTP/2 state; drain may have begun meanwhile. */
    private boolean resumeHttp2() throws IOException {
        socketIn = new WatchedInputStream(socket.getInputStream(), raw::shutdownInput, reads);
        if (draining) {
            h2.drain();
        }
        return h2.resume(socketIn);
    }

    /** How this connection's HTTP/2 frame reader parks it (see {@link Http2Connection.Parking}). */
    private final class Http2Parking implements Http2Connection.Parking {
        @Override
        public long handOffNanos() {
            return handoffNanos;
        }

        @Override
        public void boundReads(int millis) throws IOException {
            raw.setSoTimeout(millis);
        }

        @Override
        public boolean park(long idleLeftNanos) throws IOException {
            return parkHttp2(idleLeftNanos);
        }
    }

    /**
     * Hands an idle h2c connection to the poller; false when drain began (nothing changed: the reader goes on under
     * the GOAWAY sent here), true when this thread is done with it (parked, or ended here or by the poller).
     *
     * <p>Unlike HTTP/1.1's {@link #park}, PARKED comes first and the input is dropped only after drain was looked at:
     * drain writes a GOAWAY through the frame writer when it finds the connection RUNNING, and that write must never
     * meet a channel in non-blocking mode. Drain sets draining, then looks at the park state; this sets PARKED, then
     * looks at draining: if drain saw RUNNING, this sees draining and backs off before touching the socket, and if
     * drain saw PARKED, the poller ends the connection with its own GOAWAY.
     */
    private boolean parkHttp2(long idleLeftNanos) throws IOException {
        parkState = PARKED;
        if (draining) {
            if (!PARK_STATE.compareAndSet(this, PARKED, RUNNING)) {
                return true; // drain's eviction took it: the poller sends GOAWAY and ends it
            }
            h2.drain();
            return false;
        }
        // The output stream and its write deadline stay: the frame writer writes through them after the resume.
        WatchedInputStream watched = socketIn;
        socketIn = null;
        watched.close();
        raw.getChannel().configureBlocking(false);
        parkedUntil = reads.clock().nanoTime() + idleLeftNanos;
        if (!idleConnections.park(this)) {
            // The listener is closing: the connection ends here, as the poller would have ended it.
            if (PARK_STATE.compareAndSet(this, PARKED, CLOSING)) {
                endParked();
            }
        }
        return true;
    }

    private void serveStream(Http2Stream stream) throws IOException {
        if (!settings.underscoresInHeaders()) {
            UnderscoreFields.drop(stream.request().headers(), id);
        }
        Http2ServerExchange exchange = new Http2ServerExchange(stream, this);
        try {
            handler.handle(exchange);
        } catch (RuntimeException e) {
            Unexpected.LOG.error("connection {} stream {}: handler failed on {} {}", id, stream.id(),
                    stream.request().method(), stream.request().target(), e);
            if (!exchange.isResponseStarted()) {
                exchange.respond(500, "internal error");
            }
            return;
        }
        if (!exchange.isResponseStarted()) {
            if (stream.isReset()) {
                // The client reset the stream (its handler was interrupted and gave up): routine, and nothing can be
                // sent on it any more.
                log.debug("connection {} stream {}: reset before its handler answered", id, stream.id());
                return;
            }
            Unexpected.LOG.error("connection {} stream {}: handler returned without a response", id, stream.id());
            exchange.respond(500, "no response");
        } else if (!exchange.responseFinished()) {
            stream.abort();
        }
    }

    /**
     * The graceful end of an HTTP/2 connection: FIN after the last frame. A socket that cannot half-close (a TLS
     * socket may not) is left open; the client closes it after GOAWAY, or drain's timeout does.
     */
    private void shutdownOutput() {
        try {
            socket.shutdownOutput();
        } catch (IOException | UnsupportedOperationException e) {
            log.debug("connection {}: shutdownOutput: {}", id, e.toString());
        }
    }

    /** Reads one head within the header deadline; answers and returns null when it cannot be read. */
    private RequestHead readHead(long headerNanos) throws IOException {
        socketIn.setPhaseTimeout(headerNanos, "request head");
        try {
            RequestHead head = in.readRequestHead();
            if (head != null && !settings.underscoresInHeaders()) {
                UnderscoreFields.drop(head.headers(), id);
            }
            return head == null ? null : normalise(head);
        } catch (HttpParseException e) {
            if (requests == 0 && settings.http2().enabled() && e.getMessage().startsWith("malformed HTTP version")) {
                // Neither HTTP/1.x nor the HTTP/2 preface: on a port that speaks h2c, an invalid preface.
                Http2Connection.refusePreface(rawOut);
                return null;
            }
            reject(e.status(), e.getMessage());
            return null;
        } catch (SocketTimeoutException e) {
            reject(408, "request head not received within " + settings.headerTimeout().toMillis() + " ms");
            return null;
        } catch (EOFException e) {
            log.debug("connection {}: client closed mid-head", id);
            return null;
        } finally {
            socketIn.clearPhaseDeadline();
        }
    }

    /**
     * Absolute-form targets become origin-form, and their authority replaces Host (RFC 9112 §3.2.2), so handlers and
     * routes see one form only.
     */
    private RequestHead normalise(RequestHead head) throws HttpParseException {
        String t = head.target();
        if (t.isEmpty() || t.charAt(0) == '/' || t.equals("*")) {
            return head;
        }
        int schemeEnd = t.indexOf("://");
        if (schemeEnd <= 0) {
            return head; // authority-form (CONNECT): left to the handler, which refuses it
        }
        String scheme = t.substring(0, schemeEnd);
        if (!scheme.equalsIgnoreCase("http") && !scheme.equalsIgnoreCase("https")) {
            throw new HttpParseException(400, "unsupported scheme in absolute-form target: " + scheme);
        }
        int authStart = schemeEnd + 3;
        int pathStart = authStart;
        while (pathStart < t.length() && t.charAt(pathStart) != '/' && t.charAt(pathStart) != '?') {
            pathStart++;
        }
        String authority = t.substring(authStart, pathStart);
        if (authority.isEmpty() || authority.indexOf('@') >= 0) {
            throw new HttpParseException(400, "invalid authority in absolute-form target");
        }
        String rest = t.substring(pathStart);
        String originForm = rest.isEmpty() ? "/" : rest.charAt(0) == '?' ? "/" + rest : rest;
        head.headers().set("Host", authority);
        return head.withTarget(originForm);
    }

    /** Serves one request; returns whether the connection may serve another. */
    private boolean serveOne(RequestHead head) throws IOException {
        BodyFraming framing;
        try {
            framing = BodyFraming.ofRequest(head);
        } catch (HttpParseException e) {
            reject(e.status(), e.getMessage());
            return false;
        }
        Headers h = head.headers();
        if (h.hasToken("Upgrade", "h2c")) {
            // The HTTP/1.1 upgrade to h2c is not offered (RFC 9113 §3.1 deprecates it; prior knowledge is): the
            // request is served as HTTP/1.1, as if Upgrade were absent. Forwarding it would let an origin that
            // accepts h2c tunnel requests past the gateway's routes and filters ("h2c smuggling").
            h.remove("Upgrade");
            h.remove("HTTP2-Settings");
        }
        String expect = h.first("Expect");
        if (expect != null && !expect.equalsIgnoreCase("100-continue")) {
            reject(417, "only 'Expect: 100-continue' is supported");
            return false;
        }
        Http1ServerExchange exchange = new Http1ServerExchange(this, head, framing, in, out, requests);
        try {
            handler.handle(exchange);
        } catch (IOException | RuntimeException e) {
            if (!exchange.isResponseStarted() && e instanceof RuntimeException) {
                Unexpected.LOG.error("connection {}: handler failed on {} {}", id, head.method(), head.target(), e);
                reject(500, "internal error");
                return false;
            }
            // After the head was sent, the only honest signal left is to abort: a truncated body must not look
            // complete to the client.
            log.debug("connection {}: exchange aborted: {}", id, e.toString());
            return false;
        }
        if (exchange.upgraded()) {
            return false;
        }
        if (!exchange.isResponseStarted()) {
            Unexpected.LOG.error("connection {}: handler returned without a response to {} {}", id, head.method(),
                    head.target());
            reject(500, "no response");
            return false;
        }
        out.flush();
        if (exchange.closeAfter()) {
            return false;
        }
        // The next request starts where this one's body ends: read what the handler left, within reason.
        if (!exchange.requestBody().isComplete()) {
            try {
                if (!exchange.requestBody().drain(MAX_DRAIN_BYTES)) {
                    return false;
                }
            } catch (IOException e) {
                return false;
            }
        }
        return true;
    }

    private void reject(int status, String detail) {
        log.debug("connection {}: rejecting request with {}: {}", id, status, detail);
        try {
            out.flush();
            ProtocolErrors.send(rawOut, status, detail);
        } catch (IOException e) {
            log.debug("connection {}: could not send {}: {}", id, status, e.toString());
        }
    }

    long id() {
        return id;
    }

    InetSocketAddress remote() {
        return remote;
    }

    InetSocketAddress local() {
        return local;
    }

    /** The TLS session's facts, or null on a plain connection. */
    TlsInfo tls() {
        return tlsInfo;
    }

    /**
     * The protocol ALPN settled on ({@code h2}, {@code http/1.1}), empty when the client offered none, null on a
     * plain connection: what a dispatcher between HTTP/1.1 and HTTP/2 reads.
     */
    String applicationProtocol() {
        return tlsInfo == null ? null : tlsInfo.applicationProtocol();
    }

    HttpLimits limits() {
        return settings.limits();
    }

    HttpInput input() {
        return in;
    }

    /** The socket's own stream, unbuffered, for tunnels after the HttpOutput was flushed. */
    OutputStream rawOutput() {
        return rawOut;
    }

    /** Whether a request is being read or served now (for drain's report; racy by nature, used only for logs). */
    boolean isBusy() {
        return !idle;
    }

    boolean isDraining() {
        return draining;
    }

    /**
     * Drain: a connection waiting for its next request is closed now; a busy one finishes its request, answers it
     * with "Connection: close" and then closes.
     */
    void closeIfIdle() {
        // Race window: a request whose first bytes arrive just as drain begins may find its connection closed
        // before any response byte. Clients treat that like any idle keep-alive connection closed by the server
        // and retry (RFC 9112 §9.3.1), which is why closing idle connections is safe at all.
        draining = true;
        Http2Connection c = h2;
        if (c != null) {
            if (parkState != RUNNING) {
                // Parked: the poller sends GOAWAY and closes it. Being resumed: its new thread sees draining.
                idleConnections.evict(this, false);
                return;
            }
            c.drain(); // GOAWAY: streams in flight finish, then the connection ends itself
            return;
        }
        if (parkState == PARKED) {
            idleConnections.evict(this, false);
        } else if (idle) {
            close();
        }
    }

    /**
     * The write deadline expired: a write to the client has been blocked longer than the read timeout, the client
     * stopped reading. Runs on the write watchdog's thread; closing the socket wakes the blocked write with an
     * exception, and the exchange ends as a client failure.
     */
    private void abortOverdueWrite() {
        String what = overdue;
        log.debug("connection {}: {} not done within {}, aborting", id, what,
                what.equals("TLS handshake") ? settings.headerTimeout() : settings.readTimeout());
        abort();
    }

    /**
     * Shuts the client's input down, from any thread: a request body read blocked on it ends at once. The connection
     * closes after its response (the rest of the request can no longer be read).
     */
    void cutInput() {
        try {
            raw.shutdownInput();
        } catch (IOException e) {
            log.debug("connection {}: shutdownInput: {}", id, e.toString());
        }
    }

    /** Closes the socket whatever the connection is doing (drain timeout). */
    void abort() {
        draining = true;
        if (parkState != RUNNING) {
            // Closing a parked channel here would cancel its key behind the poller's back; the poller ends it (or,
            // if it resumed it meanwhile, closes its socket as this would have).
            idleConnections.evict(this, true);
            return;
        }
        close();
    }

    /** Closes the socket; idempotent, from any thread (the bookkeeping end is {@link #finish()}). */
    void close() {
        if (!CLOSED.compareAndSet(this, false, true)) {
            return;
        }
        WatchedInputStream watched = socketIn;
        if (watched != null) {
            watched.close(); // stops the read watchdog looking at this connection
        }
        Deadline d = writeDeadline;
        if (d != null) {
            d.close();
        }
        try {
            raw.close(); // the plain socket: never waits for a TLS lock another thread may hold
        } catch (IOException e) {
            log.debug("connection {}: close failed: {}", id, e.toString());
        }
    }

    @Override
    public String toString() {
        return "connection " + id + " from " + remote;
    }

}
