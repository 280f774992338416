package io.loomgate.server;

import io.loomgate.http.BufferPool;
import io.loomgate.http.Headers;
import io.loomgate.http.RequestHead;
import io.loomgate.http1.BodyFraming;
import io.loomgate.http1.HttpInput;
import io.loomgate.http1.HttpOutput;
import io.loomgate.http1.HttpParseException;
import io.loomgate.http2.Http2Connection;
import io.loomgate.http2.Http2Settings;
import io.loomgate.threads.NanoClock;
import io.loomgate.threads.Unexpected;
import io.loomgate.threads.WatchedInputStream;
import io.loomgate.threads.WatchedOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.SocketTimeoutException;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The HTTP/1.1 side of a client connection: its keep-alive loop. Wait for a request (idle timeout, no buffers held),
 * read its head (header deadline), hand it to the handler, make sure the request body was consumed, and go round
 * again while the connection may be reused. The {@link ClientConnection} it serves keeps the socket, TLS, the choice
 * of protocol and drain; this loop only notices the HTTP/2 preface (prior knowledge) and says so.
 *
 * <p>Threading: everything here is the connection's own thread's, except {@link #isIdle()} (drain's question). The
 * object lives as long as the connection, across parks: a resumed connection carries on where it stopped (the request
 * count, what the waits learned), over the socket streams made anew.
 */
final class Http1ServerConnection {
    private static final Logger log = LoggerFactory.getLogger(Http1ServerConnection.class);
    /** How much of an unread request body is read and thrown away to keep a connection; beyond it, close. */
    private static final long MAX_DRAIN_BYTES = 256 * 1024;
    /**
     * How long that read may take in all (each read has the read timeout as well): a client that drips the rest of a
     * body it no longer needs must not hold the thread; beyond it the connection closes (lingering, see
     * {@link io.loomgate.threads.LingeringClose}). 256 KiB takes a few milliseconds on any link that is not hostile or very poor.
     * The listener's {@code linger-timeout} when shorter: it is the same kind of wait (reading what the client still
     * sends of a request that was answered), as nginx bounds its discarded bodies by its lingering timeout.
     */
    private static final Duration MAX_DRAIN_TIME = Duration.ofSeconds(5);
    private static final byte[] HTTP2_PREFACE_START = Http2Settings.prefaceStart();

    /** How the loop stopped. */
    enum End {
        /** The connection is done: closed by the client, timed out, refused, or not reusable. */
        CLOSED,
        /** Handed to the idle poller: this thread is done, a new one runs the connection when bytes arrive. */
        PARKED,
        /** The first bytes are the HTTP/2 preface: the connection speaks HTTP/2 from here on. */
        HTTP2
    }

    private final ClientConnection connection;
    private final ListenerSettings settings;
    private final ExchangeHandler handler;
    /** How idle waits park; null when the connection keeps its thread while idle. */
    private final ParkState parking;
    private final NanoClock clock;
    private WatchedInputStream socketIn;
    private WatchedOutputStream rawOut;
    private HttpInput in;
    private HttpOutput out;
    private int requests;
    /** Whether the loop waits for a request now (drain closes such a connection at once). */
    private volatile boolean idle = true;

    Http1ServerConnection(ClientConnection connection, ListenerSettings settings, ExchangeHandler handler,
                          ParkState parking, NanoClock clock) {
        this.connection = connection;
        this.settings = settings;
        this.handler = handler;
        this.parking = parking;
        this.clock = clock;
    }

    /**
     * Runs the loop over the socket's streams (new ones after every park) until the connection ends, parks or turns
     * out to speak HTTP/2.
     */
    End serve(WatchedInputStream socketIn, WatchedOutputStream rawOut) throws IOException {
        this.socketIn = socketIn;
        this.rawOut = rawOut;
        in = new HttpInput(socketIn, socketIn.directReader(), BufferPool.SIZE, settings.limits());
        out = new HttpOutput(rawOut, rawOut.directWriter(), BufferPool.SIZE);
        long headerNanos = settings.headerTimeout().toNanos();
        // Only virtual threads park: the platform models are the classic thread-per-connection baseline.
        boolean mayPark = parking != null && Thread.currentThread().isVirtual();
        while (!connection.isDraining()) {
            idle = true;
            if (in.buffered() == 0) {
                out.releaseBuffer();
                Boolean next = mayPark ? awaitOrPark()
                        : Boolean.valueOf(awaitNextRequest(idleBound(), false));
                if (next == null) {
                    return End.PARKED;
                }
                if (!next) {
                    return End.CLOSED;
                }
                if (!mayPark && requests == 0) {
                    // the head's reads wait as they did before the first byte came (idleBound may have shortened it)
                    socketIn.setReadTimeout(settings.idleTimeout());
                }
            }
            idle = false;
            // Over TLS, HTTP/2 is chosen by ALPN (RFC 9113 §3.3): a client that asked for http/1.1 and got it is read
            // as HTTP/1.1 (its preface gets 505); prior knowledge is for plain connections and TLS without ALPN.
            if (requests == 0 && settings.http2().enabled() && !"http/1.1".equals(connection.applicationProtocol())) {
                if (startsWithHttp2Preface(headerNanos)) {
                    return End.HTTP2;
                }
                if ("h2".equals(connection.applicationProtocol())) {
                    // ...and a client that got h2 speaks HTTP/2 or nothing: anything but the preface is an invalid
                    // preface (RFC 9113 §3.4), as nginx, HAProxy and Envoy answer it. Until session 60 it was read as
                    // HTTP/1.1 and served, a protocol the client never agreed on.
                    log.debug("connection {}: ALPN chose h2, the first bytes are not the HTTP/2 preface",
                            connection.id());
                    Http2Connection.refusePreface(rawOut);
                    connection.lingerBeforeClose();
                    return End.CLOSED;
                }
            }
            if (connection.isDraining()) {
                // Drain began while this request's first bytes arrived: answer it, then close.
                log.debug("connection {} got a request while draining", connection.id());
            }
            RequestHead head = readHead(headerNanos);
            if (head == null) {
                return End.CLOSED;
            }
            socketIn.setReadTimeout(settings.readTimeout());
            if (!serveOne(head)) {
                return End.CLOSED;
            }
            requests++;
        }
        return End.CLOSED;
    }

    /**
     * After {@link End#HTTP2}: the bytes read so far (starting with the preface), HTTP/1.1's buffers given back; the
     * frame reader has its own.
     */
    byte[] handOver() {
        out.releaseBuffer();
        byte[] alreadyRead = in.takeBuffered();
        in = null;
        out = null;
        return alreadyRead;
    }

    /** Requests served so far. */
    int requests() {
        return requests;
    }

    /** Whether the loop is waiting for a request now (racy by nature: drain's decision and its report). */
    boolean isIdle() {
        return idle;
    }

    /**
     * The bound of a thread-holding idle wait: idle-timeout, and before the first request counted from the accept.
     * In a pool of N platform threads a new connection waits in the pool's queue before its thread runs; counted from
     * the thread's start, N connections that send nothing held every thread for a whole idle-timeout each while the
     * rest queued, so idle connections over max-connections kept a well-behaved client waiting for rounds of them
     * (24 idle connections, max-connections 16, platform:4: 24 s, session 56's probe). A connection whose time ran out
     * in the queue is closed at once unless its request is already here. Not for a client that has spoken
     * ({@link #clientSpoke}: its TLS handshake done, or its first bytes awaited in the idle poller, as
     * every connection on a pool whose socket the poller watches): until session 60 a TLS client whose handshake
     * ended past idle-timeout from its accept (it started within header-timeout, after a wait for a thread) had a
     * millisecond for the request it sends after the handshake, and was closed unanswered as idle. Only on a platform
     * thread: a virtual thread holds nothing scarce while it waits, and on a saturated scheduler its start lags the
     * accept as its client's own sends may, so timed from the accept a 200 ms idle-timeout closed connections whose
     * first request came in time from the client's side (IdleClosedOriginConnectionTest's origins at load 12-19).
     */
    private Duration idleBound() throws IOException {
        if (requests > 0 || Thread.currentThread().isVirtual() || clientSpoke()) {
            return settings.idleTimeout();
        }
        long left = settings.idleTimeout().toNanos() - (clock.nanoTime() - connection.acceptedNanos());
        if (left < MIN_FIRST_WAIT_NANOS && socketIn.available() > 0) {
            // Its request came while it queued: read it under the head's deadline. A millisecond's read deadline
            // would race the read watchdog, whose cut (the input shut) a thread preempted at load can see first: a
            // request already here then closed unanswered as idle.
            return settings.idleTimeout();
        }
        return Duration.ofNanos(Math.max(MIN_FIRST_WAIT_NANOS, left));
    }

    /**
     * Whether the client has sent something by the time this loop first waits: its TLS handshake is done, or the
     * connection waited for its first bytes in the idle poller and runs because they came (or its FIN). Such a client
     * was not idle: whatever time it spent waiting for a pool thread was the gateway's.
     */
    private boolean clientSpoke() {
        return connection.tls() != null || parking != null && parking.awaitedFirstBytes();
    }

    /** The least wait for a first request whose time ran out in a pool's queue: long enough to read one sent. */
    private static final long MIN_FIRST_WAIT_NANOS = 1_000_000;

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
            log.debug("connection {} idle for {}, closing", connection.id(), timeout);
            return false;
        }
    }

    /**
     * The idle wait of a connection that may park. Returns true (a request is coming), false (the client closed or
     * the idle timeout passed) or null (parked: this thread is done). A busy connection (see {@link ParkState}) waits
     * untimed, holding a read buffer; every other wait (after a connection's first request, after a pause longer
     * than the hand-off delay, after a resumption) blocks for the hand-off delay, then parks; a new connection's
     * wait after its first request parks at once when many other new connections wait so already (see ParkState).
     */
    private Boolean awaitOrPark() throws IOException {
        long start = clock.nanoTime();
        long idleLeft = parking.idleLeftNanos(settings.idleTimeout().toNanos());
        if (parking.waitsUntimed()) {
            boolean next = awaitNextRequest(settings.idleTimeout(), true);
            parking.waitedUntimed(clock.nanoTime() - start);
            return next;
        }
        if (parking.mayHandOff(requests == 1)) {
            try {
                // SO_TIMEOUT for the hand-off delay, not the watchdog: a watchdog's expiry cuts the input for good,
                // and this wait must end softly. The watchdog only at the idle end, where the connection ends anyway:
                // over TLS, SO_TIMEOUT bounds each read of the raw socket under the TLS layer, and records that carry
                // no data (empty ones, a warning alert) keep coming within it without ever ending this read.
                socketIn.setReadTimeoutNanos(Math.max(1, start + idleLeft - clock.nanoTime()));
                parking.boundReads((int) Math.max(1, parking.handOffNanos() / 1_000_000));
                boolean next = in.awaitData();
                // The wait before a connection's first request says nothing about how it is used.
                parking.waitedTimed(requests > 0, clock.nanoTime() - start);
                return next;
            } catch (SocketTimeoutException e) {
                if (clock.nanoTime() - (start + idleLeft) >= 0) {
                    log.debug("connection {} idle for {}, closing", connection.id(), settings.idleTimeout());
                    return Boolean.FALSE; // the idle end (the watchdog's cut, or a hand-off read that ended there)
                }
                // quiet for the hand-off delay: park
            } finally {
                parking.handoffEnded(); // first: the permit comes back whatever the socket does next
                parking.boundReads(0);
            }
        }
        // No thread, no streams, no deadlines while parked: the next run makes them anew.
        in = null;
        out = null;
        socketIn = null;
        rawOut = null;
        return parking.park(start + idleLeft, false) ? null : Boolean.FALSE;
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

    /** Reads one head within the header deadline; answers and returns null when it cannot be read. */
    private RequestHead readHead(long headerNanos) throws IOException {
        socketIn.setPhaseTimeout(headerNanos, "request head");
        try {
            RequestHead head = in.readRequestHead();
            if (head != null && !settings.underscoresInHeaders()) {
                UnderscoreFields.drop(head.headers(), connection.id());
            }
            return head == null ? null : normalise(head);
        } catch (HttpParseException e) {
            if (requests == 0 && settings.http2().enabled() && e.getMessage().startsWith("malformed HTTP version")) {
                // Neither HTTP/1.x nor the HTTP/2 preface: on a port that speaks h2c, an invalid preface.
                Http2Connection.refusePreface(rawOut);
                connection.lingerBeforeClose();
                return null;
            }
            reject(e.status(), e.getMessage());
            return null;
        } catch (SocketTimeoutException e) {
            reject(408, "request head not received within " + settings.headerTimeout().toMillis() + " ms");
            return null;
        } catch (EOFException e) {
            log.debug("connection {}: client closed mid-head", connection.id());
            return null;
        } finally {
            socketIn.clearPhaseDeadline();
        }
    }

    /**
     * Absolute-form targets become origin-form, and their authority replaces Host (RFC 9112 §3.2.2), so handlers and
     * routes see one form only.
     */
    private static RequestHead normalise(RequestHead head) throws HttpParseException {
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
        long id = connection.id();
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
        Http1ServerExchange exchange = new Http1ServerExchange(connection, head, framing, in, out, requests);
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
        } finally {
            exchange.handled();
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
            if (!exchange.requestBody().isComplete() || in.buffered() > 0) {
                // An early answer (or pipelined requests behind it): the client may still be sending.
                connection.lingerBeforeClose();
            }
            return false;
        }
        // The next request starts where this one's body ends: read what the handler left, within reason.
        if (!exchange.requestBody().isComplete() && !drainRest(exchange)) {
            connection.lingerBeforeClose();
            return false;
        }
        return true;
    }

    /** Reads the rest of a request body the handler left, at most {@link #MAX_DRAIN_BYTES} within MAX_DRAIN_TIME. */
    private boolean drainRest(Http1ServerExchange exchange) {
        socketIn.setPhaseTimeout(Math.min(MAX_DRAIN_TIME.toNanos(), settings.lingerTimeout().toNanos()),
                "rest of the request body");
        try {
            return exchange.requestBody().drain(MAX_DRAIN_BYTES);
        } catch (IOException e) {
            log.debug("connection {}: rest of the request body not read: {}", connection.id(), e.toString());
            return false;
        } finally {
            socketIn.clearPhaseDeadline();
        }
    }

    private void reject(int status, String detail) {
        long id = connection.id();
        log.debug("connection {}: rejecting request with {}: {}", id, status, detail);
        try {
            out.flush();
            ProtocolErrors.send(rawOut, status, detail);
            connection.lingerBeforeClose(); // the rest of what the client sent is unread
        } catch (IOException e) {
            log.debug("connection {}: could not send {}: {}", id, status, e.toString());
        }
    }
}
