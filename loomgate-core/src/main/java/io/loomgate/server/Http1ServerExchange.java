package io.loomgate.server;

import io.loomgate.http.ClientCancel;
import io.loomgate.http.Headers;
import io.loomgate.http.RequestHead;
import io.loomgate.http.ResponseHead;
import io.loomgate.http.Status;
import io.loomgate.http1.BodyFraming;
import io.loomgate.http1.BodyInputStream;
import io.loomgate.http1.ForwardingBodyInputStream;
import io.loomgate.http1.HttpInput;
import io.loomgate.http1.HttpOutput;
import java.io.IOException;

/**
 * One request on an HTTP/1.1 client connection. Created and used only by the connection's thread. Tracks what the
 * connection loop must know afterwards: whether a response was started and finished, whether the client asked to
 * close, and whether the request body was read to its end.
 */
final class Http1ServerExchange extends ConnectionExchange {
    private static final String HTTP_11 = "HTTP/1.1";
    private static final byte[] CONTINUE = "HTTP/1.1 100 Continue\r\n\r\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII);

    private final BodyInputStream body;
    private final HttpInput in;
    private final HttpOutput out;
    private final boolean clientKeepAlive;
    private boolean expectContinue;
    private boolean continueSent;
    private boolean responseStarted;
    private boolean closeAfter;
    /** Volatile: the drain's look reads it (a tunnel reads the client's socket itself, see DrainCut). */
    private volatile boolean upgraded;
    /** What the drain's cut runs while this exchange is handled; null when the handler registered none. */
    private ClientCancel cancel;
    /** Where the output stood when the response head was encoded, and closeAfter before it: for retractResponse. */
    private long sentAtHead = -1;
    private int bufferedAtHead;
    private boolean closeAfterBeforeHead;

    Http1ServerExchange(ClientConnection connection, RequestHead request, BodyFraming framing, HttpInput in,
                        HttpOutput out, int index) {
        super(connection, request, framing, index);
        this.in = in;
        this.out = out;
        this.clientKeepAlive = wantsKeepAlive(request);
        this.expectContinue = request.isHttp11() && request.headers().hasToken("Expect", "100-continue")
                && !(framing instanceof BodyFraming.None);
        BodyInputStream raw = framing.open(in, connection.limits());
        this.body = expectContinue ? new ContinueOnFirstRead(raw) : raw;
    }

    /** HTTP/1.1 is persistent unless "close"; HTTP/1.0 only with "keep-alive" (RFC 9112 §9.3). */
    private static boolean wantsKeepAlive(RequestHead request) {
        Headers h = request.headers();
        if (request.isHttp11()) {
            return !h.hasToken("Connection", "close");
        }
        return h.hasToken("Connection", "keep-alive");
    }

    @Override
    public BodyInputStream requestBody() {
        return body;
    }

    @Override
    public void sendInterim(ResponseHead head) throws IOException {
        if (responseStarted) {
            throw new IllegalStateException("interim response after the final response head");
        }
        checkInterim(head);
        if (!request.isHttp11()) {
            return; // HTTP/1.0 clients do not understand 1xx (RFC 9110 §15.2)
        }
        if (head.status() == 100) {
            if (continueSent) {
                return;
            }
            continueSent = true;
        }
        head.headers().remove("Content-Length"); // never on a 1xx (RFC 9110 §8.6)
        out.writeResponseHead(ours(head));
        out.flush();
    }

    /**
     * The status line carries the gateway's own version, HTTP/1.1, whatever the origin spoke (RFC 9110 §6.2): an
     * HTTP/1.0 origin's response is re-framed by this server (chunked, keep-alive), which 1.0 could not express.
     */
    private static ResponseHead ours(ResponseHead head) {
        return HTTP_11.equals(head.version()) ? head
                : new ResponseHead(HTTP_11, head.status(), head.reason(), head.headers());
    }

    @Override
    public ResponseBody sendHead(ResponseHead head, BodyFraming responseFraming) throws IOException {
        if (responseStarted) {
            throw new IllegalStateException("response head already sent");
        }
        responseStarted = true;
        sentAtHead = out.sentBytes();
        bufferedAtHead = out.buffered();
        closeAfterBeforeHead = closeAfter;
        Headers h = head.headers();
        boolean headRequest = isHeadRequest();
        BodyFraming wire = responseFraming;
        if (head.status() == 204) {
            h.remove("Content-Length"); // RFC 9110 §8.6: never on a 204, even one the origin gave a length
        }
        if (!headRequest) {
            if (Status.forbidsBody(head.status())) {
                wire = BodyFraming.NONE;
            }
            // instanceof, not a pattern switch: JDK 25's AOT cache does not hold its bootstrap, which
            // spun a class before the first answer (docs/architecture.md, "Start-up")
            if (wire instanceof BodyFraming.Fixed f) {
                h.remove("Transfer-Encoding");
                setContentLength(h, f.length());
            } else if (wire instanceof BodyFraming.Chunked) {
                h.remove("Content-Length");
                if (request.isHttp11()) {
                    h.set("Transfer-Encoding", "chunked");
                } else {
                    h.remove("Transfer-Encoding");
                    wire = BodyFraming.UNTIL_CLOSE;
                }
            } else if (wire instanceof BodyFraming.UntilClose) {
                h.remove("Transfer-Encoding");
                h.remove("Content-Length");
            } else { // None
                h.remove("Transfer-Encoding");
            }
        }
        boolean close = closeAfter || !clientKeepAlive || connection.isDraining()
                || wire instanceof BodyFraming.UntilClose || unreadBodyForbidsReuse();
        if (close) {
            closeAfter = true;
            h.set("Connection", "close");
        } else if (!request.isHttp11()) {
            h.set("Connection", "keep-alive");
        }
        // A final response ends any interest in "100 Continue": a client that waits for it will send the body or
        // not, and the loop closes the connection if the body was not read (see unreadBodyForbidsReuse).
        expectContinue = false;
        out.writeResponseHead(ours(head));
        if (headRequest) {
            return new ResponseBodies.Discarding(out);
        }
        if (wire instanceof BodyFraming.Fixed f) { // instanceof, not a pattern switch: as above
            return new ResponseBodies.Fixed(out, f.length());
        }
        if (wire instanceof BodyFraming.Chunked) {
            return new ResponseBodies.Chunked(out);
        }
        if (wire instanceof BodyFraming.UntilClose) {
            return new ResponseBodies.UntilClose(out);
        }
        return new ResponseBodies.Discarding(out); // None
    }

    /**
     * A request whose client waits for "100 Continue" that was never sent may or may not send its body: the next
     * request's first byte is unknowable, so the connection must close after this response.
     */
    private boolean unreadBodyForbidsReuse() {
        return expectContinue && !continueSent;
    }

    @Override
    public Tunnel upgrade(ResponseHead switchingProtocols) throws IOException {
        if (responseStarted) {
            throw new IllegalStateException("response head already sent");
        }
        if (switchingProtocols.status() != 101) {
            throw new IllegalArgumentException("upgrade needs a 101 head, got " + switchingProtocols.status());
        }
        responseStarted = true;
        upgraded = true;
        closeAfter = true;
        out.writeResponseHead(ours(switchingProtocols));
        out.flush();
        return new Tunnel(in, connection.rawOutput());
    }

    @Override
    public boolean retractResponse() {
        if (!responseStarted || upgraded || sentAtHead < 0 || out.sentBytes() != sentAtHead) {
            return false;
        }
        out.discardBuffered(bufferedAtHead);
        responseStarted = false;
        closeAfter = closeAfterBeforeHead;
        sentAtHead = -1;
        return true;
    }

    /** Run if the drain's deadline cuts the connection while this exchange is handled (see ClientConnection). */
    @Override
    public void onClientCancel(ClientCancel action) {
        cancel = action; // before the registration's volatile store, which publishes it to the drain's thread
        connection.drainCut().register(this);
    }

    /** The handler returned: the connection forgets its cancel (an idle connection holds no exchange). */
    void handled() {
        if (cancel != null) {
            connection.drainCut().clear();
        }
    }

    ClientCancel cancel() {
        return cancel;
    }

    /**
     * Whether nothing of the gateway reads this client's socket any more while the exchange runs: its body was read to
     * its end and no tunnel took the socket over. Read by the drain's thread (a body's end seen late only skips a look).
     */
    boolean readsClientNoMore() {
        return !upgraded && body.isComplete();
    }

    @Override
    public void closeAfterResponse() {
        closeAfter = true;
    }

    /** The client's input is shut down (another thread may call this): the connection closes after the response. */
    @Override
    public void stopRequestBody() {
        closeAfter = true; // read by the connection's thread after the handler returned, which joined the caller
        connection.cutInput();
    }

    @Override
    public boolean isResponseStarted() {
        return responseStarted;
    }

    boolean closeAfter() {
        return closeAfter;
    }

    boolean upgraded() {
        return upgraded;
    }

    /** Sends "100 Continue" before the first read of a body the client is holding back (RFC 9110 §10.1.1). */
    private final class ContinueOnFirstRead extends ForwardingBodyInputStream {
        ContinueOnFirstRead(BodyInputStream body) {
            super(body);
        }

        private void maybeContinue() throws IOException {
            if (expectContinue && !continueSent && !responseStarted) {
                continueSent = true;
                out.write(CONTINUE);
                out.flush();
            }
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            maybeContinue();
            return body.read(b, off, len);
        }

        @Override
        public boolean awaitData() throws IOException {
            maybeContinue(); // a client waiting for "100 Continue" would otherwise never send what we wait for
            return body.awaitData();
        }

        @Override
        public void startReading() throws IOException {
            maybeContinue();
        }
    }
}
