package io.loomgate.server;

import io.loomgate.http.ConnectionAttributes;
import io.loomgate.http.HttpLimits;
import io.loomgate.http2.ConnectionParking;
import io.loomgate.http2.Http2Connection;
import io.loomgate.http2.Http2Stream;
import io.loomgate.threads.Deadline;
import io.loomgate.threads.LingeringClose;
import io.loomgate.threads.Unexpected;
import io.loomgate.threads.VarHandles;
import io.loomgate.threads.Watchdog;
import io.loomgate.threads.WatchedInputStream;
import io.loomgate.threads.WatchedOutputStream;
import io.loomgate.tls.ServerTls;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.function.Consumer;
import javax.net.ssl.SSLSocket;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One client connection: its socket, TLS, the choice of protocol, drain and its end. What it speaks is served by
 * {@link Http1ServerConnection} (the keep-alive loop, the first choice of every connection) or, once the first bytes
 * are the HTTP/2 preface (prior knowledge, or ALPN's h2, whose clients send it at once), by an
 * {@link Http2Connection} whose streams run their exchanges here ({@link #serveStream}).
 *
 * <p>Threading: the socket, its streams and the protocol's connection are changed only by the connection's own
 * thread, the one running {@link #run()}. The only ways in from other threads are {@link #closeIfIdle()},
 * {@link #abort()} and {@link #cutInput()} (drain, deadlines, a relay), through the volatile {@link #draining} flag
 * and a close that happens once.
 *
 * <p>TLS: with a {@link ServerTls}, the connection's first act is the handshake, which must start within the header
 * timeout of the accept and end within the header timeout of its start (the listener's watchdog closes a connection
 * that is overdue, whether or not its thread has run yet, see {@link #handshake}). The plain socket stays
 * the one that is cut, shut down and closed from other threads; the TLS socket is only read and written by the
 * connection's own thread.
 *
 * <p>Idle keep-alive connections ({@link IdlePoller}): on a socket its listener's poller can watch, run on a virtual
 * thread, a connection that has no next request (HTTP/1.1) or frame with nothing in flight (HTTP/2) within the
 * hand-off delay is parked in the listener's selector through its {@link ParkState} and its thread ends (a parked
 * virtual thread keeps a stack chunk of about 5 KB); when bytes arrive, {@link #run()} runs again on a new thread and
 * the protocol's connection goes on where it stopped. While parked, the poller owns the connection: its input (and
 * for HTTP/1.1 its output and write deadline) are dropped and made anew on resume, and {@link #endParked()} is how it
 * ends: with a GOAWAY written by the poller for HTTP/2 (through the engine on TLS). An HTTP/2 connection keeps its
 * {@link Http2Connection} (HPACK table, settings, windows) and its output stream, which the frame writer holds.
 */
final class ClientConnection implements Runnable {
    private static final Logger log = LoggerFactory.getLogger(ClientConnection.class);

    private final long id;
    private final ConnectionAttributes attributes = new ConnectionAttributes();
    /** Set by {@link #abortForDrain()}; read by the exchanges that fail on the closed socket. */
    private final DrainCut drainCut;
    /** The accepted TCP socket: closed (or its input shut down) to end the connection from any thread. */
    private final Socket raw;
    private final ServerTls tls;
    /** What the connection reads and writes: {@link #raw}, or the TLS socket layered over it. Own thread only. */
    private Socket socket;
    private TlsInfo tlsInfo;
    /** What the write deadline is armed for, for the log when it expires; written by the connection's thread. */
    private volatile String overdue = WRITE;
    /** Set by the write watchdog when a deadline cut the handshake: it told the listener why, the thread must not. */
    private volatile boolean handshakeCut;
    private final ListenerSettings settings;
    private final ExchangeHandler handler;
    private final ConnectionListener events;
    /** Told once when the connection ends (the listener's bookkeeping: one shared instance, not one per connection). */
    private final Consumer<ClientConnection> onClose;
    private final Watchdog reads;
    private final Watchdog writes;
    /** How the connection parks while idle; null when it keeps its thread while idle. */
    private final ParkState parking;
    /** What {@link #overdue} says while the write deadline watches a write, the wait for the handshake, or it. */
    private static final String WRITE = "write to the client";
    private static final String HANDSHAKE_START = "start of the TLS handshake";
    private static final String HANDSHAKE = "TLS handshake";
    private static final VarHandle CLOSED;
    private static final VarHandle ENDED;

    static {
        MethodHandles.Lookup lookup = MethodHandles.lookup();
        CLOSED = VarHandles.field(lookup, "closed", boolean.class);
        ENDED = VarHandles.field(lookup, "ended", boolean.class);
    }

    private volatile boolean draining;
    /** Set by the protocol when its client may still be sending as the connection ends: linger first. Own thread. */
    private boolean lingerAtEnd;
    /** Whether the connection's thread is in its lingering close: drain and abort close it at once. */
    private volatile boolean lingering;
    /** The HTTP/1.1 loop, from the first run on (also across parks); null before. */
    private volatile Http1ServerConnection http1;
    /** The HTTP/2 connection once the connection speaks HTTP/2; null before and for HTTP/1.1. */
    private volatile Http2Connection h2;
    /**
     * When the listener accepted the connection (the read watchdog's clock), taken on the accept loop's thread: a
     * connection queued for a pool's thread ({@code platform:N}) has been waiting since then, not since its thread ran.
     */
    private final long acceptedNanos;
    /** Set once, by whoever closes first (CAS through {@link #CLOSED}). */
    @SuppressWarnings("unused")
    private volatile boolean closed;
    /** Set once, by whoever ends the connection first (CAS through {@link #ENDED}): its events and permit, once. */
    @SuppressWarnings("unused")
    private volatile boolean ended;
    /** Whether {@link #run()} ran before: a later run is a resumption after parking. Own thread only. */
    private boolean started;
    private InetSocketAddress remote;
    private InetSocketAddress local;
    /**
     * The client's IP as text, made by the first exchange that asks (X-Forwarded-For, Forwarded, the access log):
     * once per connection, not per request. Any of its streams' threads may make it: a race only makes it twice.
     */
    private String remoteIp;
    private WatchedInputStream socketIn;
    /** Armed around every write to the client; expires when the client stopped reading. */
    private Deadline writeDeadline;
    private WatchedOutputStream rawOut;

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
     *                        (a connection whose socket it cannot watch never parks)
     */
    ClientConnection(long id, Socket socket, ServerTls tls, ListenerSettings settings, ExchangeHandler handler,
                     ConnectionListener events, Consumer<ClientConnection> onClose, Watchdog reads, Watchdog writes,
                     IdlePoller idleConnections, Duration handoff) {
        this.id = id;
        this.raw = socket;
        this.drainCut = new DrainCut(socket);
        this.socket = socket;
        this.tls = tls;
        this.settings = settings;
        this.handler = handler;
        this.events = events;
        this.onClose = onClose;
        this.reads = reads;
        this.writes = writes;
        this.acceptedNanos = reads.clock().nanoTime();
        boolean canPark = idleConnections != null && idleConnections.canPark(socket)
                && handoff.compareTo(settings.idleTimeout()) < 0;
        this.parking = canPark ? new ParkState(this, socket, idleConnections, reads.clock(), handoff) : null;
        if (tls != null) {
            // The wait for the connection's thread is bounded too, from the accept (the listener makes the connection
            // right after it): on a loaded machine a burst of new connections' threads waits for a carrier behind
            // everything else the process runs, longer than the timeout, and their clients waited as long
            // unanswered (stop 38's h2load -c200 at load 25). Armed here, on the accept loop's thread, the write
            // watchdog (a platform thread) closes a connection whose handshake has not started in time whether or not
            // its thread ran; a thread that runs after that finds its socket closed and does none of the handshake's
            // work. The connection's thread owns the deadline from its start (the executor's hand-off orders this
            // arming before it); the handshake re-arms it when it starts (see handshake()).
            writeDeadline = writes.deadline(this::abortOverdueWrite);
            overdue = HANDSHAKE_START;
            writeDeadline.armAfter(settings.headerTimeout().toNanos());
        }
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
                // One deadline for everything this thread sends: the TLS handshake (the wait for its start, armed at
                // the accept, then the handshake: header timeout each), each write to the client and the close_notify
                // (read timeout). Its expiry aborts the connection.
                if (writeDeadline == null) {
                    writeDeadline = writes.deadline(this::abortOverdueWrite);
                }
                raw.setTcpNoDelay(true); // throws if the handshake's deadline closed the socket before this ran
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
                handedOff = serveHttp1();
            }
            served = !handedOff;
        } catch (IOException e) {
            log.debug("connection {} ended: {}", id, e.toString());
        } catch (RuntimeException e) {
            Unexpected.LOG.error("connection {}: unexpected failure", id, e);
        } finally {
            if (!handedOff) {
                try {
                    if (served && lingerAtEnd) {
                        try {
                            lingerThenClose();
                        } catch (RuntimeException e) {
                            // whatever the socket does, the close below must happen
                            Unexpected.LOG.error("connection {}: lingering close failed", id, e);
                        }
                    } else if (served && socket instanceof SSLSocket s) {
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
                    Http2Connection c = h2;
                    if (c != null) {
                        c.awaitHandlers(settings.readTimeout()); // its streams' threads: a drain waits for them too
                    }
                } finally {
                    finish();
                }
            }
        }
    }

    /**
     * The connection's bookkeeping end, exactly once whoever calls it and however often (its own thread, the idle
     * poller, both after a race): a refusal after the handshake counted, the closed event and the listener's permit.
     */
    private void finish() {
        if (!ENDED.compareAndSet(this, false, true)) {
            return;
        }
        try {
            TlsRefusals.count(id, socket, remote, events);
            Http1ServerConnection h = http1;
            events.connectionClosed(remote, h == null ? 0 : h.requests());
        } finally {
            onClose.accept(this);
        }
    }

    /** The watched streams over the socket; made at the start and again on every HTTP/1.1 resumption after a park. */
    private void openStreams() throws IOException {
        // The channel (plain sockets only) lets bulk bodies move through direct buffers (BodyRelay, W4). Never a TLS
        // connection's: JSSE's layered socket answers getChannel() with the raw socket's channel, and bytes written
        // there would bypass the encryption. The TLS listener accepts classic sockets, which have none, so this
        // only matters if it ever accepts channels (TlsTerminationTest sends a bulk body through it).
        SocketChannel channel = tls == null ? socket.getChannel() : null;
        socketIn = new WatchedInputStream(socket.getInputStream(), channel, raw::shutdownInput, reads);
        rawOut = new WatchedOutputStream(socket.getOutputStream(), channel, writeDeadline,
                settings.readTimeout().toNanos());
    }

    /**
     * Drops the socket's streams as the connection parks (no thread, no deadlines while parked);
     * {@code keepOutput}: the output stream and its write deadline stay (HTTP/2's frame writer writes through them
     * after the resume).
     */
    void dropStreams(boolean keepOutput) {
        WatchedInputStream watched = socketIn;
        socketIn = null;
        watched.close();
        if (!keepOutput) {
            writeDeadline.close();
            writeDeadline = null;
            rawOut = null;
        }
    }

    /**
     * Runs the TLS handshake within the header timeout of its start; false when it failed (garbage, an old protocol,
     * no client certificate where one is needed, or too slow) or its start came too late, which ends the connection
     * quietly: one debug line, no answer (there is no TLS channel to answer on), nobody else disturbed.
     *
     * <p>Two bounds, not one from the accept: a handshake cut at a deadline counted from the accept has usually had
     * its costly part done already (the key exchange and the signature, a millisecond or more of CPU), and under
     * overload that is most of them. At a load average of 25 with JSSE's handshake not yet compiled, 200 handshakes at
     * once with one deadline from the accept served 8 of the 200 (the rest closed at 10 s, most after their server
     * flight); bounded as here, the connections still waiting for a thread at the deadline are closed without costing
     * anything and the ones under way finish (docs/security.md). A client is answered or closed within the header
     * timeout if its handshake had not started, within twice that at worst if it had.
     */
    private boolean handshake() {
        if (writeDeadline.disarm()) {
            return false; // its start came too late: the watchdog closed the socket (this thread ran only now)
        }
        overdue = HANDSHAKE;
        writeDeadline.armAfter(settings.headerTimeout().toNanos());
        try {
            SSLSocket s = tls.handshake(raw);
            socket = s;
            tlsInfo = TlsInfo.of(s);
            return true;
        } catch (IOException | RuntimeException e) {
            log.debug("connection {}: TLS handshake failed: {}", id, e.toString());
            if (!handshakeCut) {
                events.tlsHandshakeFailed(remote, ConnectionListener.HandshakeFailure.FAILED);
            }
            return false;
        } finally {
            writeDeadline.disarm();
            overdue = WRITE;
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

    /**
     * The connection is to end while its client may still be sending (an early answer, a protocol error's): it
     * lingers before it closes ({@link LingeringClose}). Called by the protocol on the connection's own thread.
     */
    void lingerBeforeClose() {
        lingerAtEnd = true;
    }

    /**
     * Half-close (close_notify first over TLS, under the write deadline), then read and throw away what the client
     * still sends, within {@link LingeringClose}'s bounds (the total: the listener's {@code linger-timeout}). Drain
     * (or abort) meanwhile closes the socket, which ends it.
     */
    private void lingerThenClose() {
        // Drain closes a lingering connection (closeIfIdle, which its passes call every 50 ms): a shutdown does not
        // wait out a linger.
        lingering = true;
        LingeringClose.halfClose(raw, socket, writeDeadline, settings.readTimeout().toNanos());
        long start = reads.clock().nanoTime();
        LingeringClose.End end = LingeringClose.discard(raw, reads, settings.lingerTimeout());
        log.debug("connection {}: lingering close ended {} after {} ms", id, end,
                (reads.clock().nanoTime() - start) / 1_000_000);
    }

    /**
     * The HTTP/1.1 loop, first or resumed; returns true when the connection was handed to the idle poller (thread
     * done). The protocol is chosen here: a connection whose first bytes are the HTTP/2 preface goes on as HTTP/2.
     */
    private boolean serveHttp1() throws IOException {
        Http1ServerConnection h = http1;
        if (h == null) {
            h = new Http1ServerConnection(this, settings, handler, parking, reads.clock());
            http1 = h;
        }
        return switch (h.serve(socketIn, rawOut)) {
            case CLOSED -> false;
            case PARKED -> true;
            case HTTP2 -> serveHttp2(h.handOver());
        };
    }

    /**
     * On a pool of platform threads, a new connection waits for its client's first bytes in the idle poller, without
     * a thread ({@link ParkState#parkBeforeFirstBytes}), bounded from the accept: a TLS connection by its handshake's
     * start deadline (armed in the constructor; the poller's own sweep is only a backstop), a plain one by the idle
     * timeout. Returns false when it could not park (no poller for this socket, drain began): the caller runs it on a
     * thread as before.
     */
    boolean awaitFirstBytesWithoutThread() {
        if (parking == null) {
            return false;
        }
        long wait = tls != null ? 2 * settings.headerTimeout().toNanos() : settings.idleTimeout().toNanos();
        return parking.parkBeforeFirstBytes(acceptedNanos + wait);
    }

    /**
     * The end of a parked connection (idle timeout, drain, the listener closing, a channel closed meanwhile), on the
     * poller's thread: the same close and the same events, once, as a connection ending on its own thread.
     */
    void endParked() {
        parking.closing();
        if (!started) {
            // Parked before its first bytes and ended there, never run (awaitFirstBytesWithoutThread): its opening is
            // told here, so every closed event has its opened one. The poller owns it: no thread reads these.
            remote = (InetSocketAddress) raw.getRemoteSocketAddress();
            local = (InetSocketAddress) raw.getLocalSocketAddress();
            events.connectionOpened(remote);
        }
        try {
            Http2Connection c = h2;
            if (c != null) {
                parking.goAway(c, draining ? "server shutting down" : "idle timeout", tls == null ? null : socket);
            }
            close();
        } finally {
            finish();
        }
    }

    /**
     * The connection speaks HTTP/2 from here on: one {@link Http2Connection} reads its frames on this thread and
     * runs each stream's exchange on a virtual thread of its own, through the same handler; {@code alreadyRead}: the
     * bytes the HTTP/1.1 loop read, starting with the preface. Returns true when it was parked (this thread is done),
     * false when it ended.
     */
    private boolean serveHttp2(byte[] alreadyRead) throws IOException {
        // Only virtual threads park: the platform models are the classic thread-per-connection baseline.
        ConnectionParking mayPark = Thread.currentThread().isVirtual() ? parking : null;
        Http2Connection c = new Http2Connection(id, socketIn, alreadyRead, rawOut, settings.http2(),
                settings.limits(), settings.idleTimeout(), settings.readTimeout(), settings.lingerTimeout(),
                this::shutdownOutput, this::serveStream, mayPark);
        h2 = c;
        if (draining) {
            c.drain();
        }
        boolean parked = c.serve();
        if (!parked && c.endedWithError()) {
            lingerAtEnd = true; // GOAWAY for an error: the client's frames in flight are still coming
        }
        return parked;
    }

    /** An h2c connection resumed after a park: a new input, the same HTTP/2 state; drain may have begun meanwhile. */
    private boolean resumeHttp2() throws IOException {
        socketIn = new WatchedInputStream(socket.getInputStream(), raw::shutdownInput, reads);
        if (draining) {
            h2.drain();
        }
        boolean parked = h2.resume(socketIn);
        if (!parked && h2.endedWithError()) {
            lingerAtEnd = true;
        }
        return parked;
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

    /** Drain began while an HTTP/2 connection was parking: GOAWAY, its streams in flight finish. */
    void drainHttp2() {
        Http2Connection c = h2;
        if (c != null) {
            c.drain();
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

    long id() {
        return id;
    }

    /** When the listener accepted this connection, on the read watchdog's clock. */
    long acceptedNanos() {
        return acceptedNanos;
    }

    /** Whether the drain's deadline cut this connection, and the HTTP/1.1 exchange's cancel it runs then. */
    DrainCut drainCut() {
        return drainCut;
    }

    /** What the exchange listeners keep about this connection (ServerExchange.connectionAttributes). */

    ConnectionAttributes attributes() {
        return attributes;
    }

    InetSocketAddress remote() {
        return remote;
    }

    /** {@link ServerExchange#remoteIp()}, the same string for every request of the connection. */
    String remoteIp() {
        String ip = remoteIp;
        if (ip == null) {
            ip = remote.getAddress().getHostAddress();
            remoteIp = ip;
        }
        return ip;
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

    /** The socket's own stream, unbuffered, for tunnels after the HTTP/1.1 output was flushed. */
    OutputStream rawOutput() {
        return rawOut;
    }

    /** Whether a request is being read or served now (for drain's report; racy by nature, used only for logs). */
    boolean isBusy() {
        if (lingering) {
            return false; // answered: only throwing away what the client still sends
        }
        Http1ServerConnection h = http1;
        return h2 != null || h != null && !h.isIdle();
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
        if (lingering) {
            close(); // done with its client: the lingering read ends now
            return;
        }
        Http2Connection c = h2;
        if (c != null) {
            if (parking != null && parking.isOffThread()) {
                // Parked: the poller sends GOAWAY and closes it. Being resumed: its new thread sees draining.
                parking.evict(false);
                return;
            }
            c.drain(); // GOAWAY: streams in flight finish, then the connection ends itself
            return;
        }
        Http1ServerConnection h = http1;
        if (parking != null && parking.isParked()) {
            parking.evict(false);
        } else if (h == null || h.isIdle()) {
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
        // Still parked before its first bytes (a pool of platform threads): its client sent no ClientHello, a slow
        // or silent client as on a thread of its own, not a handshake that waited for a thread.
        boolean silent = what.equals(HANDSHAKE_START) && parking != null && parking.isParked();
        if (what.equals(HANDSHAKE_START) || what.equals(HANDSHAKE)) {
            handshakeCut = true;
            events.tlsHandshakeFailed((InetSocketAddress) raw.getRemoteSocketAddress(),
                    what.equals(HANDSHAKE) || silent ? ConnectionListener.HandshakeFailure.TIMED_OUT
                            : ConnectionListener.HandshakeFailure.NOT_STARTED);
        }
        if (silent) {
            log.debug("connection {}: no ClientHello within {} of the accept, closing", id, settings.headerTimeout());
        } else if (what.equals(HANDSHAKE_START)) {
            log.debug("connection {}: TLS handshake not started within {} of the accept (no thread was free to run it "
                    + "in time: the process is overloaded), closing", id, settings.headerTimeout());
        } else {
            log.debug("connection {}: {} not done within {}, aborting", id, what,
                    what.equals(HANDSHAKE) ? settings.headerTimeout() : settings.readTimeout());
        }
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

    /**
     * The drain's deadline passed with this connection still open: closed as {@link #abort()} does, marked first so
     * an exchange that fails on the closed socket reports the drain's cut, unless its client had left (DrainCut).
     */
    void abortForDrain() {
        drainCut.mark();
        abort();
        // HTTP/1.1: the handler may be waiting for its origin, which the closed socket does not end; cancelled as a
        // client's reset cancels an HTTP/2 stream (whose connection's end, after this close, cancels its own).
        drainCut.cancelExchange();
    }

    /** Closes the socket whatever the connection is doing (drain timeout, a write stalled past its deadline). */
    void abort() {
        draining = true;
        if (parking != null && parking.isOffThread()) {
            // Closing a parked channel here would cancel its key behind the poller's back; the poller ends it (or,
            // if it resumed it meanwhile, closes its socket as this would have).
            parking.evict(true);
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
