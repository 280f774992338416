package io.loomgate.server;

import io.loomgate.http.ClientCancel;
import io.loomgate.http.ConnectionAttributes;
import io.loomgate.http.Headers;
import io.loomgate.http.RequestHead;
import io.loomgate.http.ResponseHead;
import io.loomgate.http1.BodyFraming;
import io.loomgate.http1.BodyInputStream;
import io.loomgate.threads.BulkOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * One request on a client connection, as a handler sees it: the parsed head, the framed body, and the means to
 * answer. Owned by the connection's thread for the duration of {@link ExchangeHandler#handle}.
 *
 * <p>Lifecycle: zero or more {@link #sendInterim} (1xx), then exactly one of {@link #sendHead} (followed by writing
 * and finishing the returned body), {@link #respond}, or {@link #upgrade}.
 */
public interface ServerExchange {

    RequestHead request();

    /** How the request body is framed. */
    BodyFraming requestFraming();

    /**
     * The request body, ending exactly where the request ends. If the client sent {@code Expect: 100-continue}, the
     * first read sends {@code 100 Continue} (so a handler that refuses the request early never invites the body).
     */
    BodyInputStream requestBody();

    InetSocketAddress remoteAddress();

    /** The client's IP address as text ({@link java.net.InetAddress#getHostAddress()} of {@link #remoteAddress()}). */
    default String remoteIp() {
        return remoteAddress().getAddress().getHostAddress();
    }

    InetSocketAddress localAddress();

    /** The position of this request on its connection, from 0: pipelining and reuse are visible through it. */
    int requestIndex();

    /** A process-wide id of the client connection. */
    long connectionId();

    /** What the listeners keep about the client connection (shared by its requests and streams); null for none. */
    default ConnectionAttributes connectionAttributes() {
        return null;
    }

    /**
     * Whether a drain closed the client connection while this exchange ran (its deadline passed with the exchange
     * still going): a failed client write is then the gateway's cut, not the client's leaving.
     */
    default boolean cutByDrain() {
        return false;
    }

    /**
     * Whether the drain's deadline closed the client connection, cut by it or after its client had left: the
     * process is ending, so an origin awaited is not let answer to keep its connection.
     */
    default boolean closedAtDrainsDeadline() {
        return false;
    }

    /** The TLS facts of the client connection (protocol, ALPN, verified client certificate); null when plain. */
    default TlsInfo tls() {
        return null;
    }

    /**
     * Registers what ends the handler's work when the client cancels this request while it is handled (an HTTP/2
     * client's RST_STREAM, or its connection ending). It runs on another thread, must not block, and must be
     * idempotent (a reset racing the registration may run it twice). Without one the handler's thread is
     * interrupted. HTTP/1.1 has no such signal from its client: there it runs only when a drain's deadline closed the
     * connection under the exchange (the closed socket alone does not end a wait for the origin), whether or not its
     * client had left before ({@link #cutByDrain}).
     */
    default void onClientCancel(ClientCancel action) {
    }

    /** Sends an informational (1xx, not 101) head at once. */
    void sendInterim(ResponseHead head) throws IOException;

    /**
     * Sends the response head and returns the body stream. The server writes the framing fields itself: the head must
     * not carry Transfer-Encoding; {@code Content-Length} is set for {@link BodyFraming.Fixed}, {@code chunked} for
     * {@link BodyFraming.Chunked} (close-delimited for an HTTP/1.0 client). For a HEAD request the head is sent as
     * given and nothing written to the body reaches the client. Nothing is flushed until the body is flushed or
     * finished.
     */
    ResponseBody sendHead(ResponseHead head, BodyFraming framing) throws IOException;

    /** A whole small response in one call. */
    default void respond(int status, String contentType, byte[] body) throws IOException {
        ResponseHead head = ResponseHead.of(status);
        if (contentType != null) {
            head.headers().add("Content-Type", contentType);
        }
        respond(head, body);
    }

    /** A whole small response with the caller's header fields (Allow, Cache-Control...); framing is the server's. */
    default void respond(ResponseHead head, byte[] body) throws IOException {
        ResponseBody out = sendHead(head, new BodyFraming.Fixed(body.length));
        out.write(body);
        out.finish(null);
    }

    default void respond(int status, String text) throws IOException {
        respond(status, "text/plain; charset=utf-8", text.getBytes(StandardCharsets.UTF_8));
    }

    /**
     * Sends a 101 head and hands over the raw connection. The returned tunnel's streams are the client socket's,
     * after any bytes already buffered; the connection is closed when the handler returns.
     */
    Tunnel upgrade(ResponseHead switchingProtocols) throws IOException;

    /** Asks that the connection be closed after this response ({@code Connection: close} is added if not sent). */
    void closeAfterResponse();

    /**
     * Ends the reading of a request body that will not be read to its end, from any thread: a read blocked in it
     * (a relay on a thread of its own, issue 34) returns or fails at once instead of waiting for its read timeout.
     * Over HTTP/1.1 the client's input is shut down, so the connection closes after the response; over HTTP/2 the
     * stream's body is given up (its reads fail, the stream stays open: the failure's own answer still has to go out
     * on it; session 60, before which a read there waited for its timeout) and the stream stops taking DATA once its
     * response is complete (RST_STREAM NO_ERROR).
     */
    default void stopRequestBody() {
    }

    /** Whether a response head has been sent (after that, a failure can only abort the connection). */
    boolean isResponseStarted();

    /**
     * Whether the handler's thread ends with this exchange (an HTTP/2 stream's own thread), so what the handler put
     * in thread-local state for it (the log MDC) goes with the thread; false when the thread goes on to the
     * connection's next request.
     */
    default boolean threadEndsWithExchange() {
        return false;
    }

    /**
     * Takes back a started response none of whose bytes has reached the client yet (its head still sits in the
     * write buffer), so a failure found that early can be answered with a status of its own instead of a bare close.
     * Returns whether it was taken back; false once any byte was sent, and by default.
     */
    default boolean retractResponse() {
        return false;
    }

    /** The body of a response being sent. */
    abstract class ResponseBody extends BulkOutputStream {
        /**
         * Ends the body: checks a fixed length was met exactly (a shortfall aborts the connection rather than look
         * complete), writes the last chunk and these trailers (null or empty for none), and flushes.
         */
        public abstract void finish(Headers trailers) throws IOException;

        /**
         * Whether {@link #write(ByteBuffer)} writes straight to the client's socket (a plain HTTP/1.1
         * connection, a body sent as it comes: fixed length or until close). False by default.
         */
        public boolean writesDirect() {
            return false;
        }

        /** Writes all of {@code src} (a direct buffer: no copy through the heap). Only when {@link #writesDirect()}. */
        public void write(ByteBuffer src) throws IOException {
            throw new UnsupportedOperationException(getClass().getSimpleName() + " has no direct writes");
        }

        /**
         * Body bytes that left for the client so far, when this body can tell them from those written to it (an HTTP/2
         * stream: DATA sent, a write cut short by a shut window counted in part); -1 when it cannot (an HTTP/1.1 body
         * goes whole into the socket's writes, which count it).
         */
        public long sent() {
            return -1;
        }
    }

    /** The two raw directions of an upgraded connection. */
    record Tunnel(InputStream fromClient, OutputStream toClient) {
    }
}
