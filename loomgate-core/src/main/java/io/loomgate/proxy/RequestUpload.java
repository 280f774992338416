package io.loomgate.proxy;

import io.loomgate.http1.BodyInputStream;
import io.loomgate.threads.BulkOutputStream;
import io.loomgate.threads.ConnectionExecutors;
import java.io.IOException;
import java.io.OutputStream;
import java.net.SocketTimeoutException;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One attempt's request body as it goes to the origin, the same for every upstream protocol: the bytes sent (on the
 * request's thread or beside it), and the relay on a thread of its own while the request's thread reads the response
 * (full duplex, issue 34). That relay ends, or is stopped and its connection discarded, before the attempt settles:
 * one owner per connection. The codec starts the relay and says how to stop the origin's side; the attempt ends it.
 */
final class RequestUpload {
    private static final Logger log = LoggerFactory.getLogger(RequestUpload.class);
    /** How long a stopped upload is waited for: its next write fails at once, a read of the client is cut. */
    static final Duration STOP_WAIT = Duration.ofSeconds(1);
    /**
     * The upload of a request without a body, shared by every such attempt: never started, so every question it is
     * asked reads its initial state (not running, nothing sent, no failure) and nothing ever sets a field of it
     * (the attempt makes its own before a body's first use, and gives up only its own).
     */
    static final RequestUpload NONE = new RequestUpload("no request body");

    /** The body's relay on a thread beside the request's; what it does once the body's end is sent. */
    @FunctionalInterface
    interface Task {
        void run() throws IOException;
    }

    /** Names the attempt in log lines. */
    private final Object owner;
    /** The relay beside the request's thread; null when the body went (or goes) on the request's thread. */
    private Thread thread;
    /** Ends the origin's side (its next write fails): the codec's, set with the relay. */
    private Runnable stopOrigin;
    /** How the relay ended badly, if it did: a client read failure outranks the reset it causes upstream. */
    private volatile IOException failure;
    /** Request body bytes sent so far, by whichever thread sent them. */
    private volatile long sent;
    /** Set by the relay's thread as it ends, however it ends. */
    private volatile boolean ended;
    /** Set when the origin's answer says it reads no more: the relay beside stops at its next piece. */
    private volatile boolean cut;
    /** Set when the upload stopped on the request's thread for an answer before the whole body was sent. */
    private boolean stoppedForAnswer;
    /** Set when a retry took the request body over: stopping the relay must not cut the client's input. */
    private volatile boolean released;
    /** Ends a read of the client's body blocked in the relay (the downstream's); null for none. */
    private Runnable stopClientBody;
    /** Whether stopping the relay had to cut the client's body: the rest of it can never be read. */
    private boolean clientBodyCut;

    RequestUpload(Object owner) {
        this.owner = owner;
    }

    /** What ends a read of the client's body that the relay is blocked in, should it have to be stopped. */
    void stopClientBodyWith(Runnable action) {
        this.stopClientBody = action;
    }

    /**
     * Starts the relay beside the request's thread (of its kind: ConnectionExecutors). A failure reading the client
     * stops the origin ({@code stopOrigin}): a client that failed mid-body must not leave a request the origin waits
     * on. A write failure runs {@code afterWriteFailure} (HTTP/2 resets the stream; HTTP/1.1 leaves the response
     * alone: an origin may stop reading a body it has answered in full).
     */
    void start(BodyInputStream body, String name, Runnable stopOrigin, Runnable afterWriteFailure, Task task)
            throws BodyRelay.ReadFailed {
        try {
            body.startReading(); // a "100 Continue" goes now: later this thread may be writing the response
        } catch (IOException e) {
            throw new BodyRelay.ReadFailed(e);
        }
        this.stopOrigin = stopOrigin;
        thread = ConnectionExecutors.startBeside(name, () -> {
            try {
                task.run();
            } catch (BodyRelay.ReadFailed e) {
                failure = e; // the client's fault: the origin stops waiting for the rest
                stopOrigin.run();
            } catch (IOException | RuntimeException e) {
                failure = e instanceof BodyRelay.WriteFailed w ? w
                        : new BodyRelay.WriteFailed(e instanceof IOException io ? io : new IOException(e));
                afterWriteFailure.run();
            } finally {
                ended = true;
            }
        });
    }

    /** {@code out}, counting the body's bytes as they are sent, for the access log whatever way the upload ends. */
    OutputStream counting(OutputStream out) {
        return new PieceOutput(out) {
            @Override
            void beforePiece() throws IOException {
                if (cut) {
                    throw new BodyRelay.WriteFailed(new IOException("the origin answered and closes: upload stopped"));
                }
            }

            @Override
            void afterPiece(int length) {
                sent += length; // only the relay's thread writes it
            }
        };
    }

    /** The body was sent on the request's thread, {@code bytes} of it. */
    void sentOnRequestThread(long bytes) {
        sent = bytes;
    }

    /** Bytes of the request body sent so far, on the request's thread or beside it. */
    long sent() {
        return sent;
    }

    /** The origin's answer says it reads no more: the relay beside stops at its next piece. */
    void cut() {
        cut = true;
    }

    /** The upload stopped on the request's thread for the origin's final answer, before the whole body went. */
    void stoppedForAnswer() {
        stoppedForAnswer = true;
    }

    /** Whether the origin answered before the whole body was sent and the upload stopped for it, here or beside. */
    boolean answeredEarly() {
        return stoppedForAnswer || cut;
    }

    /** Whether a relay beside the request's thread was started and has not ended. */
    boolean running() {
        return thread != null && !ended;
    }

    /** Whether the relay beside ended badly (a failed read of the client or write to the origin). */
    boolean failed() {
        return thread != null && failure != null;
    }

    /**
     * After the response ended: waits up to {@code grace} for the relay to end (an origin that answers as it reads
     * ends its answer just after the body's end reached it, so the relay is finishing its last write). Returns
     * whether the whole body went through; false when the relay failed or was still running, which is then stopped.
     */
    boolean end(Duration grace) {
        Thread t = thread;
        if (t == null) {
            return true;
        }
        if (!join(t, grace)) {
            stop();
            return false;
        }
        return failure == null;
    }

    /** Whether the relay is still sending after a moment's wait (a body sent whole is ending its relay now). */
    boolean busy() {
        Thread t = thread;
        return t != null && !join(t, Duration.ofMillis(100));
    }

    /**
     * Gives the relay up for a retry that takes the body over: only the origin's side is stopped, so the relay's
     * next write fails; the client's input is left alone, since the next attempt goes on reading it.
     */
    void release() {
        released = true;
        if (running()) {
            stopOrigin.run();
        }
    }

    /**
     * After {@link #release()} for a refused HTTP/2 stream whose relay still read the client (session 58), on the
     * next attempt's relay thread, once it sent the bytes kept so far: waits until {@code deadlineNanos}
     * (System.nanoTime()) for this relay to end. Its read of the client returns when the client sends more; what it
     * read is in the refused stream's copy before its write to the stopped stream fails. Once it ended (the join
     * orders its last read before the caller's next, see {@code RefusedStreamCopy}): the client's failure if that is
     * how it ended, else null (a write that failed, or its read finding the body handed over: a {@code WriteFailed}
     * that a read path wrapped). Still reading at the deadline: stopped as any other, its client's input cut
     * ({@link #bodyLost}), and a {@link SocketTimeoutException}.
     */
    IOException awaitHandedOver(long deadlineNanos) throws SocketTimeoutException {
        Thread t = thread;
        if (t != null) {
            long left = deadlineNanos - System.nanoTime();
            if (left <= 0 || !join(t, Duration.ofNanos(left))) {
                released = false;
                stop();
                throw new SocketTimeoutException("the refused attempt's read of the request body did not end within"
                        + " the route's timeout");
            }
        }
        IOException f = failure;
        return f instanceof BodyRelay.ReadFailed r && r.getCause() instanceof IOException client
                && !(client instanceof BodyRelay.WriteFailed) ? client : null;
    }

    /**
     * After {@link #release()} for a refused stream whose body no retry took up before the exchange ended (its dial
     * refused, a breaker open; session 59), on the request's thread: a relay still reading the client has that read
     * cut at once ({@code stopClientBody}: HTTP/1.1 shuts the client's input down and closes the connection after the
     * answer), not waited for. Before, it stayed pending past the exchange, beside the connection's own next read.
     */
    void cutHandedOver() {
        if (running() && stopClientBody != null) {
            clientBodyCut = true;
            stopClientBody.run();
        }
    }

    /**
     * Whether another attempt cannot have the body: the relay still holds it (not released to another attempt), or
     * stopping it cut the client's.
     */
    boolean bodyLost() {
        return running() && !released || clientBodyCut;
    }

    /** The client's failure while its body was relayed beside, if that is how the relay ended (waited for). */
    IOException clientBodyFailure() {
        Thread t = thread;
        if (t == null) {
            return null;
        }
        join(t, STOP_WAIT); // its failure stopped the origin, which is what failed the caller: let it land
        return failure instanceof BodyRelay.ReadFailed r ? r : null;
    }

    /**
     * The deadline that ended the relay on the origin's side, if it has (no wait): its flow-control window (or
     * socket) stayed shut past the route's timeout. The relay's own cancel of the stream then fails the wait for the
     * head too, and the timeout, not that cancel, is what the exchange reports.
     */
    SocketTimeoutException originStalledNow() {
        return failure instanceof BodyRelay.WriteFailed w && w.getCause() instanceof SocketTimeoutException t
                ? t : null;
    }

    /** The client's failure while its body was relayed beside, if it has already ended the relay (no wait). */
    IOException clientBodyFailureNow() {
        IOException f = failure;
        return f instanceof BodyRelay.ReadFailed ? f : null;
    }

    /**
     * Stops a relay still running: the origin's side first (its next write fails), and, if it is still reading the
     * client after a moment, the client's body too; then waits for it, briefly. One still running after that touches
     * nothing the pool or the next request shares: its connection is discarded and its client's input is cut. A
     * released relay (its body went to another attempt) is stopped on the origin's side only, and not waited for.
     */
    void stop() {
        Thread t = thread;
        if (t == null || ended) {
            return;
        }
        stopOrigin.run();
        if (released) {
            return; // the body went to another attempt, which waits for this relay's read if it must
        }
        if (!join(t, Duration.ofMillis(100)) && stopClientBody != null) {
            clientBodyCut = true;
            stopClientBody.run();
            if (!join(t, STOP_WAIT)) {
                log.debug("{}: request body relay still running after it was stopped", owner);
            }
        }
    }

    private static boolean join(Thread t, Duration wait) {
        try {
            return t.join(wait);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return !t.isAlive();
        }
    }

    /** An output that sees each piece of the body go by, before and after it is written. */
    abstract static class PieceOutput extends BulkOutputStream {
        private final OutputStream out;

        PieceOutput(OutputStream out) {
            this.out = out;
        }

        void beforePiece() throws IOException {
        }

        abstract void afterPiece(int length) throws IOException;

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            beforePiece();
            out.write(b, off, len);
            afterPiece(len);
        }

        @Override
        public void flush() throws IOException {
            out.flush();
        }
    }
}
