package io.loomgate.lab.load;

import io.loomgate.http.HttpLimits;
import io.loomgate.http.HttpVersion;
import io.loomgate.http.ResponseHead;
import io.loomgate.http1.BodyFraming;
import io.loomgate.http1.BodyInputStream;
import io.loomgate.http1.HttpInput;
import io.loomgate.threads.Deadline;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.concurrent.locks.LockSupport;

/**
 * One client connection of a load run, driven by its own virtual thread: sends the pre-encoded request, reads the
 * whole response, records it, and again, reconnecting whenever the connection was lost or the server asked to close.
 *
 * <p>Only its own thread uses the streams. Other threads may close the socket from outside: the watching thread at
 * the end of the run ({@link #abort()}), and the run's watchdog when a response is overdue. That is how reads are
 * bounded: not by a socket timeout, because on a virtual thread a timed read arms and cancels a timer on every read,
 * which costs more than the rest of a small exchange; instead each request arms its {@link Deadline} and the
 * watchdog, which looks a few times per timeout, closes the socket of a request past it. The deadline claims the
 * expiry by compare-and-set, so the watchdog can never close the socket of the next request by mistake.
 */
final class LoadConnection implements Runnable {
    private static final int READ_BUFFER = 16 * 1024;
    /** After a failed connect, wait this long before the next attempt so a refused port does not spin a core. */
    private static final long CONNECT_RETRY_NANOS = 10_000_000L;

    private final LoadRun run;
    private final int index;
    private final InetSocketAddress address;
    private final int timeoutMillis;
    private final long timeoutNanos;
    private final byte[] discard = new byte[READ_BUFFER];
    /** Armed while a response is awaited; its expiry closes the socket. */
    private final Deadline deadline;
    private volatile Socket socket;
    private HttpInput in;
    private OutputStream out;
    private long bytesRead;
    /** Set by this thread once a response of it counted; read by the watcher after the run. */
    private volatile boolean served;

    LoadConnection(LoadRun run, int index) {
        this.run = run;
        this.index = index;
        this.address = new InetSocketAddress(run.spec.target().getHost(), run.spec.port());
        this.timeoutMillis = (int) Math.min(Integer.MAX_VALUE, run.spec.timeout().toMillis());
        this.timeoutNanos = run.spec.timeout().toNanos();
        this.deadline = run.watchdog.deadline(this::closeSocket);
    }

    @Override
    public void run() {
        Thread.currentThread().setName("load-" + index + "->" + address);
        run.register(this);
        OpenSchedule schedule = run.schedule(index);
        long sequence = 0;
        boolean claimed = false; // whether this connection has claimed a ticket yet (its own is the first)
        try {
            while (!run.stopped()) {
                long intended;
                if (schedule != null) {
                    intended = schedule.intendedStart(sequence++);
                    if (!run.awaitUntil(intended)) {
                        break;
                    }
                } else {
                    intended = System.nanoTime();
                }
                boolean ticketed = run.measuring(intended) && run.spec.requests() > 0;
                if (ticketed) {
                    if (!run.takeTicket(index, !claimed)) {
                        break;
                    }
                    claimed = true;
                }
                exchange(intended, ticketed);
            }
        } finally {
            deadline.close();
            closeSocket();
            run.connectionEnded();
        }
    }

    boolean served() {
        return served;
    }

    /** Closes the socket from another thread, ending any read in flight. */
    void abort() {
        closeSocket();
    }

    private void exchange(long intended, boolean ticketed) {
        if (socket == null && !connect(ticketed)) {
            return;
        }
        long sent = System.nanoTime();
        long before = bytesRead;
        deadline.armAt(sent + timeoutNanos);
        try {
            out.write(run.request);
            out.flush();
            int status = readResponse();
            long end = System.nanoTime();
            if (deadline.disarm()) {
                closeSocket(); // the watchdog expired it just as it completed: it counts, the socket is gone
            }
            if (run.recordResponse(ticketed, intended, sent, end, status, bytesRead - before) && !served) {
                served = true;
            }
        } catch (IOException | RuntimeException e) {
            // Expired by the watchdog, or reset, EOF before the response ended, or a malformed response: either way
            // the connection is unusable.
            boolean expired = deadline.disarm();
            run.recordError(expired ? run.timeoutErrors : run.resetErrors, ticketed);
            closeSocket();
        }
    }

    private boolean connect(boolean ticketed) {
        Socket s = new Socket();
        try {
            s.setTcpNoDelay(true);
            s.connect(address, timeoutMillis);
            in = new HttpInput(new CountingInputStream(s.getInputStream()), READ_BUFFER, HttpLimits.DEFAULTS);
            out = s.getOutputStream();
            socket = s;
            if (run.stopped()) {
                closeSocket();
                return false;
            }
            return true;
        } catch (IOException e) {
            closeQuietly(s);
            run.recordError(run.connectErrors, ticketed);
            if (!run.spec.openModel()) {
                LockSupport.parkNanos(CONNECT_RETRY_NANOS);
            }
            return false;
        }
    }

    /** Reads one whole response (skipping 1xx heads) and returns its status; closes the socket if it must. */
    private int readResponse() throws IOException {
        ResponseHead head = in.readResponseHead();
        while (head.isInformational() && head.status() != 101) {
            head = in.readResponseHead();
        }
        BodyFraming framing = BodyFraming.ofResponse(run.spec.method(), head);
        BodyInputStream body = framing.open(in, HttpLimits.DEFAULTS);
        while (body.read(discard, 0, discard.length) >= 0) {
            // the body is only counted, through the counting stream
        }
        boolean keep = body.isComplete() && !(framing instanceof BodyFraming.UntilClose) && keepAlive(head);
        if (!keep) {
            closeSocket();
        }
        return head.status();
    }

    private static boolean keepAlive(ResponseHead head) {
        if (head.headers().hasToken("Connection", "close")) {
            return false;
        }
        return !HttpVersion.HTTP_1_0.equals(head.version()) || head.headers().hasToken("Connection", "keep-alive");
    }

    private void closeSocket() {
        Socket s = socket;
        socket = null;
        if (s != null) {
            closeQuietly(s);
        }
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException e) {
            // closing a socket we are done with: nothing to report
        }
    }

    /** Counts every byte read from the socket into this connection's total, heads included (as wrk does). */
    private final class CountingInputStream extends FilterInputStream {
        CountingInputStream(InputStream in) {
            super(in);
        }

        @Override
        public int read() throws IOException {
            int b = super.read();
            if (b >= 0) {
                bytesRead++;
            }
            return b;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            int n = in.read(b, off, len);
            if (n > 0) {
                bytesRead += n;
            }
            return n;
        }
    }
}
