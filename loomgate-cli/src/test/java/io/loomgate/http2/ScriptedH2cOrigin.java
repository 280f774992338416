package io.loomgate.http2;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.locks.ReentrantLock;

/**
 * An h2c origin on a raw socket whose behaviour a test scripts per connection: it answers every request with 200
 * and {@code ok}, and answers PINGs with an ACK, with nothing at all (a connection a NAT dropped silently), or with
 * GOAWAY ENHANCE_YOUR_CALM {@code too_many_pings} (a gRPC server's answer to pings it finds too frequent). With open
 * windows it grants the peer the largest flow-control windows and a small socket receive buffer, and can stop
 * reading ({@link #pauseReading}): the peer's writes then block in the socket, not on flow control.
 */
final class ScriptedH2cOrigin implements AutoCloseable {
    enum PingAnswer { ACK, CALM_DOWN }

    /**
     * What the origin does with a request once its body has ended (END_STREAM), while {@link #refusals} are left:
     * answers it, says GOAWAY with the stream below it as the last one then closes the connection (an origin's idle
     * close crossing the request), or resets it with REFUSED_STREAM. Either way the origin processed nothing.
     */
    enum Refusal {
        NONE, GOAWAY_BELOW, REFUSED_STREAM,
        /**
         * Not refusals: the origin fails mid-request, having maybe processed it (session 61, {@code
         * ResetMidUploadTest}). The connection reset (SO_LINGER 0 close: a crash, a load balancer's reset).
         */
        CONNECTION_RESET,
        /** RST_STREAM INTERNAL_ERROR on the stream (the connection goes on). */
        STREAM_ERROR,
        /** GOAWAY INTERNAL_ERROR whose last stream is this one (it may have been processed), then the close. */
        GOAWAY_PROCESSED,
        /**
         * A refusal (GOAWAY below the stream) then a reset at once, the gateway's frames unread: the reset may
         * discard the GOAWAY before the gateway reads it (this origin's refusal until 4eacfa5a, run 84).
         */
        GOAWAY_THEN_RESET
    }

    /**
     * How a request with a body that is not refused is answered: 200 {@code ok} once its body ended; an echo, its
     * head at its first DATA and each DATA sent back as it comes (a full-duplex origin: the client may wait for it
     * before it sends more), ended when the body ends; the same as a gRPC echo (content type {@code application/grpc},
     * the messages sent back as they came, trailers {@code grpc-status: 0}); or one gRPC message, at the body's end,
     * holding the number of body bytes as text (a client-streaming method's answer).
     */
    enum Answer { OK, ECHO, GRPC_ECHO, GRPC_COUNT }

    /** One accepted connection: what the origin saw on it, and the switch that makes it go silent. */
    static final class Conn {
        final Socket socket;
        private final OutputStream out;
        private final ReentrantLock writeLock = new ReentrantLock();
        /** Read and drop everything from now on: no answers, no ACKs (the peer sees a dead connection). */
        volatile boolean silent;
        volatile boolean endedByPeer;
        final List<Long> pingNanos = new CopyOnWriteArrayList<>();
        /** For each PING: how long the origin had written nothing before it (the gateway's silence is longer). */
        final List<Long> quietBeforePingNanos = new CopyOnWriteArrayList<>();
        volatile long lastWriteNanos = System.nanoTime();
        volatile int requests;
        /** Requests (HEADERS) that arrived while silent, left unanswered. */
        volatile int unanswered;
        /** Streams whose HEADERS did not end them (a request body follows), in order. */
        final List<Integer> uploads = new CopyOnWriteArrayList<>();
        /** Streams the peer reset (RST_STREAM), in order. */
        final List<Integer> resets = new CopyOnWriteArrayList<>();
        /** The request body of each stream, as its DATA frames came (reader thread). */
        private final java.util.Map<Integer, java.io.ByteArrayOutputStream> bodies = new java.util.HashMap<>();
        /** The whole bodies of the requests answered 200, in order. */
        final List<byte[]> answeredBodies = new CopyOnWriteArrayList<>();
        /** The streams whose echo started (their head sent). */
        private final java.util.Set<Integer> echoing = new java.util.HashSet<>();
        /** The streams refused (by GOAWAY or REFUSED_STREAM) after their whole body (or {@code refuseAtBytes}) came. */
        final List<Integer> refused = new CopyOnWriteArrayList<>();

        Conn(Socket socket) throws IOException {
            this.socket = socket;
            this.out = socket.getOutputStream();
        }

        void frame(int type, int flags, int stream, byte[] payload) throws IOException {
            byte[] f = WireFrames.frame(type, flags, stream, payload);
            writeLock.lock();
            try {
                // Stamped before the write: the gateway may read the frame before a stamp taken after the flush
                // (this thread descheduled in between), which made a PING look early by that delay.
                lastWriteNanos = System.nanoTime();
                out.write(f);
                out.flush();
            } finally {
                writeLock.unlock();
            }
        }
    }

    private final ServerSocket server;
    /** The accept loop's thread: a refusal that closes the listener waits for it to end (see {@link #stopListening}). */
    private final Thread acceptor;
    private final List<Conn> connections = new CopyOnWriteArrayList<>();
    private final boolean openWindows;
    /** While set, no connection reads its next frame until it is counted down. */
    private volatile java.util.concurrent.CountDownLatch paused;
    volatile PingAnswer pingAnswer = PingAnswer.ACK;
    /** How the next requests with a body are refused once the body came ({@link #refusals} of them). */
    volatile Refusal refusal = Refusal.NONE;
    /**
     * When positive: a request is refused (the {@link #refusal} way) as soon as this many bytes of its body came,
     * before its END_STREAM (an upload still streaming); the rest of its DATA is dropped.
     */
    volatile int refuseAtBytes;
    /** How a request with a body that is not refused is answered. */
    volatile Answer answer = Answer.OK;
    /** When set, a refusal closes the listening socket first: the retry's dial is refused (the origin went away). */
    volatile boolean goneAfterRefusal;
    /**
     * When set, a refusal waits for it to open first (the origin has the request and says nothing yet), counted in
     * {@link #refusalsHeld} as it starts waiting: a test does something between the request and its refusal.
     */
    volatile java.util.concurrent.CountDownLatch refusalGate;
    final java.util.concurrent.atomic.AtomicInteger refusalsHeld = new java.util.concurrent.atomic.AtomicInteger();
    /** Requests with a body left to refuse the {@link #refusal} way. */
    final java.util.concurrent.atomic.AtomicInteger refusals = new java.util.concurrent.atomic.AtomicInteger();

    ScriptedH2cOrigin() throws IOException {
        this(false);
    }

    /** @param openWindows the largest windows for the peer, and a small receive buffer (see the class comment) */
    ScriptedH2cOrigin(boolean openWindows) throws IOException {
        this.openWindows = openWindows;
        server = new ServerSocket();
        if (openWindows) {
            server.setReceiveBufferSize(16 * 1024); // inherited by accepted sockets: the peer's writes block sooner
        }
        server.bind(new java.net.InetSocketAddress(java.net.InetAddress.getLoopbackAddress(), 0), 50);
        acceptor = Thread.ofVirtual().name("scripted-h2c-accept").start(this::accept);
    }

    /** Every connection stops reading before its next frame (what the peer writes piles up in the socket). */
    void pauseReading() {
        paused = new java.util.concurrent.CountDownLatch(1);
    }

    void resumeReading() {
        java.util.concurrent.CountDownLatch p = paused;
        paused = null;
        if (p != null) {
            p.countDown();
        }
    }

    String uri() {
        return "h2c://127.0.0.1:" + server.getLocalPort();
    }

    List<Conn> connections() {
        return connections;
    }

    private void accept() {
        while (!server.isClosed()) {
            try {
                Socket s = server.accept();
                Conn c = new Conn(s);
                connections.add(c);
                Thread.ofVirtual().name("scripted-h2c-conn").start(() -> serve(c));
            } catch (IOException e) {
                return;
            }
        }
    }

    private void serve(Conn c) {
        try {
            DataInputStream in = new DataInputStream(c.socket.getInputStream());
            byte[] preface = new byte[Frames.PREFACE.length];
            in.readFully(preface);
            if (openWindows) {
                c.frame(Frames.SETTINGS, 0, 0, WireFrames.settings(Frames.SETTINGS_INITIAL_WINDOW_SIZE,
                        Integer.MAX_VALUE));
                c.frame(Frames.WINDOW_UPDATE, 0, 0, WireFrames.int32(Integer.MAX_VALUE - 65_535));
            } else {
                c.frame(Frames.SETTINGS, 0, 0, new byte[0]);
            }
            while (true) {
                java.util.concurrent.CountDownLatch gate = paused;
                if (gate != null) {
                    gate.await();
                }
                RawH2Client.Frame f = WireFrames.read(in, RawH2Client.Frame::new);
                byte[] p = f.payload();
                int type = f.type();
                int flags = f.flags();
                int stream = f.stream();
                if (type == Frames.PING && (flags & Frames.FLAG_ACK) == 0) {
                    long now = System.nanoTime();
                    c.quietBeforePingNanos.add(now - c.lastWriteNanos);
                    c.pingNanos.add(now);
                }
                if (c.silent) {
                    if (type == Frames.HEADERS) {
                        c.unanswered++;
                    }
                    continue;
                }
                switch (type) {
                    case Frames.SETTINGS -> {
                        if ((flags & Frames.FLAG_ACK) == 0) {
                            c.frame(Frames.SETTINGS, Frames.FLAG_ACK, 0, new byte[0]);
                        }
                    }
                    case Frames.PING -> {
                        if ((flags & Frames.FLAG_ACK) == 0) {
                            if (pingAnswer == PingAnswer.ACK) {
                                c.frame(Frames.PING, Frames.FLAG_ACK, 0, p);
                            } else {
                                c.frame(Frames.GOAWAY, 0, 0,
                                        WireFrames.goAway(0, Frames.ENHANCE_YOUR_CALM, "too_many_pings"));
                            }
                        }
                    }
                    case Frames.HEADERS -> {
                        if ((flags & Frames.FLAG_END_STREAM) != 0) {
                            c.requests++;
                            answer(c, stream);
                        } else {
                            c.uploads.add(stream);
                        }
                    }
                    case Frames.RST_STREAM -> c.resets.add(stream);
                    case Frames.DATA -> {
                        if (c.refused.contains(stream)) {
                            continue; // refused mid-body: the rest of its body is dropped
                        }
                        java.io.ByteArrayOutputStream so = c.bodies.computeIfAbsent(stream,
                                k -> new java.io.ByteArrayOutputStream());
                        so.writeBytes(p);
                        int at = refuseAtBytes;
                        boolean midBody = at > 0 && so.size() >= at && (flags & Frames.FLAG_END_STREAM) == 0;
                        if (midBody && refusal != Refusal.NONE && refusals.getAndDecrement() > 0) {
                            c.bodies.remove(stream);
                            if (refuse(c, stream)) {
                                return;
                            }
                            continue;
                        }
                        if (answer != Answer.OK && answer != Answer.GRPC_COUNT && !(at > 0 && refusals.get() > 0)) {
                            echo(c, stream, p, (flags & Frames.FLAG_END_STREAM) != 0);
                        }
                        if ((flags & Frames.FLAG_END_STREAM) != 0) {
                            c.requests++;
                            java.io.ByteArrayOutputStream body = c.bodies.remove(stream);
                            if (at <= 0 && refusal != Refusal.NONE && refusals.getAndDecrement() > 0) {
                                if (refuse(c, stream)) {
                                    return;
                                }
                                continue;
                            }
                            c.answeredBodies.add(body.toByteArray());
                            if (answer == Answer.GRPC_COUNT) {
                                grpcCount(c, stream, body.size());
                            } else if (!c.echoing.contains(stream)) {
                                answer(c, stream);
                            }
                        }
                    }
                    default -> {
                        // WINDOW_UPDATE, GOAWAY: nothing to do for these tests
                    }
                }
            }
        } catch (IOException e) {
            c.endedByPeer = true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Refuses {@code stream} the {@link #refusal} way; true when that closed the connection (GOAWAY). */
    private boolean refuse(Conn c, int stream) throws IOException {
        java.util.concurrent.CountDownLatch gate = refusalGate;
        if (gate != null) {
            refusalsHeld.incrementAndGet();
            try {
                if (!gate.await(30, java.util.concurrent.TimeUnit.SECONDS)) {
                    throw new IOException("the refusal's gate stayed shut for 30 s");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException(e);
            }
        }
        if (goneAfterRefusal) {
            stopListening();
        }
        c.refused.add(stream);
        if (refusal == Refusal.REFUSED_STREAM || refusal == Refusal.STREAM_ERROR) {
            c.frame(Frames.RST_STREAM, 0, stream, WireFrames.int32(refusal == Refusal.REFUSED_STREAM
                    ? Frames.REFUSED_STREAM : Frames.INTERNAL_ERROR));
            return false;
        }
        if (refusal == Refusal.GOAWAY_THEN_RESET) {
            c.frame(Frames.GOAWAY, 0, 0, WireFrames.goAway(Math.max(0, stream - 2), Frames.NO_ERROR, "idle"));
        }
        if (refusal == Refusal.CONNECTION_RESET || refusal == Refusal.GOAWAY_THEN_RESET) {
            c.socket.setSoLinger(true, 0);
            c.socket.close();
            return true;
        }
        if (refusal == Refusal.GOAWAY_PROCESSED) {
            c.frame(Frames.GOAWAY, 0, 0, WireFrames.goAway(stream, Frames.INTERNAL_ERROR, "failed"));
        } else {
            c.frame(Frames.GOAWAY, 0, 0, WireFrames.goAway(Math.max(0, stream - 2), Frames.NO_ERROR, "idle"));
        }
        // A FIN after the GOAWAY, then what the gateway still sends read away, then the close: a close with unread
        // bytes in the receive buffer sends a reset, and a reset that arrives before the gateway read the GOAWAY
        // discards it (Linux purges the receive queue), so the refusal would sometimes reach the gateway as a reset
        // (session 60's run 84: a RETRY_REFUSED cell saw no refusal and waited for the client's read timeout). The
        // refusal is what these cases test; a reset mid-upload is another case.
        c.socket.shutdownOutput();
        try {
            c.socket.setSoTimeout(2_000);
            byte[] sink = new byte[8192];
            while (c.socket.getInputStream().read(sink) >= 0) {
                // the gateway closes once it has the GOAWAY; until then what it sends is thrown away
            }
        } catch (IOException e) {
            // timed out or reset: closed below either way
        }
        c.socket.close();
        return true;
    }

    /**
     * Closes the listener for good before the refusal goes out, so the retry's dial is refused. {@code close()} alone
     * is not enough (session 61, run 84's flake): while the accept loop's virtual thread is parked in
     * {@code accept()}, the JDK defers closing the socket until that thread leaves it, and that thread, once
     * scheduled, tries one more accept before it looks whether the socket was closed. Under load it ran after the
     * gateway's retry had connected: the retry was accepted, served, and waited for a body the stalled client never
     * sent (408 at the read timeout, no refused dial). Once the loop's thread has ended, the socket is closed.
     */
    private void stopListening() throws IOException {
        server.close();
        try {
            if (!acceptor.join(java.time.Duration.ofSeconds(10))) {
                throw new IOException("the accept loop did not end within 10 s of the listener's close");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException(e);
        }
    }

    /** Sends {@code data} back on {@code stream} (its head first), and the end of the answer when {@code end}. */
    private void echo(Conn c, int stream, byte[] data, boolean end) throws IOException {
        boolean grpc = answer == Answer.GRPC_ECHO;
        if (c.echoing.add(stream)) {
            c.frame(Frames.HEADERS, Frames.FLAG_END_HEADERS, stream, WireFrames.block(":status", "200",
                    "content-type", grpc ? "application/grpc" : "application/octet-stream"));
        }
        if (data.length > 0) {
            c.frame(Frames.DATA, 0, stream, data);
        }
        if (end) {
            if (grpc) {
                c.frame(Frames.HEADERS, Frames.FLAG_END_HEADERS | Frames.FLAG_END_STREAM, stream,
                        WireFrames.block("grpc-status", "0"));
            } else {
                c.frame(Frames.DATA, Frames.FLAG_END_STREAM, stream, new byte[0]);
            }
        }
    }

    /** A client-streaming answer: one gRPC message holding {@code bytes} as text, then trailers. */
    private static void grpcCount(Conn c, int stream, int bytes) throws IOException {
        byte[] text = Integer.toString(bytes).getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        byte[] message = new byte[5 + text.length];
        message[4] = (byte) text.length;
        System.arraycopy(text, 0, message, 5, text.length);
        c.frame(Frames.HEADERS, Frames.FLAG_END_HEADERS, stream, WireFrames.block(":status", "200",
                "content-type", "application/grpc"));
        c.frame(Frames.DATA, 0, stream, message);
        c.frame(Frames.HEADERS, Frames.FLAG_END_HEADERS | Frames.FLAG_END_STREAM, stream,
                WireFrames.block("grpc-status", "0"));
    }

    private static void answer(Conn c, int stream) throws IOException {
        c.frame(Frames.HEADERS, Frames.FLAG_END_HEADERS, stream, WireFrames.block(":status", "200",
                "content-type", "text/plain"));
        c.frame(Frames.DATA, Frames.FLAG_END_STREAM, stream, "ok".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
    }

    @Override
    public void close() throws IOException {
        server.close();
        for (Conn c : connections) {
            c.socket.close();
        }
    }
}
