package io.loomgate.proxy;

import io.loomgate.http.Headers;
import io.loomgate.http1.BodyInputStream;
import java.io.IOException;
import java.util.Arrays;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The client's request body, kept while it streams so a retry can send it again: every byte read from the client is
 * also copied into a buffer of at most {@code limit} bytes. Each attempt reads its own {@link Pass}: {@link #rewind()}
 * starts a new one that gives the kept bytes first and then goes on reading the client, so a body the first attempt
 * never got to (the connect failed) or sent only in part is whole on every attempt. Once more than {@code limit}
 * bytes went by, the body can no longer be replayed ({@link #replayable()} is false) and only the current pass exists.
 *
 * <p>Threads: a pass may be read by an upload beside the request's thread (full duplex). When an attempt is dropped
 * for a retry while its upload is still blocked reading the client (the origin answered before the body ended), that
 * read cannot be taken back without cutting the client's input; so the client is read under a lock, whatever a
 * retired pass's read still brings in is kept for the new pass (even past the limit, one read's worth at most), and a
 * retired pass's next read fails. The new pass, once it has given the kept bytes, waits for that read to land
 * before it reads the client itself. The read lock is a {@link ReentrantLock}, not {@code synchronized}: it is held
 * over a blocking read (which has the client's read deadline); the kept bytes are given without it, so a new pass
 * replays them while a retired one still waits for the client (a client that waits for an echo before it sends more).
 */
final class ReplayableBody {
    private final BodyInputStream client;
    private final int limit;
    /** Held over a read of the client (a blocking read, under the client's read deadline): one reader at a time. */
    private final ReentrantLock reading = new ReentrantLock();
    /** Guards the fields below; never held over I/O. */
    private final ReentrantLock state = new ReentrantLock();
    private byte[] kept = new byte[0];
    private int keptLength;
    private boolean overflowed;
    /** The pass the current attempt reads; every other one is retired. */
    private Pass current;

    ReplayableBody(BodyInputStream client, long limit) {
        this.client = client;
        this.limit = (int) Math.min(limit, Integer.MAX_VALUE - 8);
        this.current = new Pass();
    }

    /** Whether a new pass can still give the whole body from its start. */
    boolean replayable() {
        state.lock();
        try {
            return !overflowed;
        } finally {
            state.unlock();
        }
    }

    /** The pass the current attempt reads. */
    BodyInputStream current() {
        state.lock();
        try {
            return current;
        } finally {
            state.unlock();
        }
    }

    /**
     * Starts a new pass from the first byte and retires the others; null when the body outgrew the limit. Does not
     * wait for a retired pass's read in progress (its bytes will be kept for this pass).
     */
    BodyInputStream rewind() {
        state.lock();
        try {
            if (overflowed) {
                return null;
            }
            current = new Pass(); // a read of the client landing from now on keeps its bytes for this pass
            return current;
        } finally {
            state.unlock();
        }
    }

    private void keep(byte[] b, int off, int n, boolean retired) {
        if (kept == null) {
            return;
        }
        if (keptLength + n > limit && !retired) {
            overflowed = true;
            kept = null; // the memory goes back now: this body will not be sent again
            return;
        }
        if (keptLength + n > kept.length) {
            int cap = retired ? keptLength + n : limit;
            kept = Arrays.copyOf(kept, Math.min(cap, Math.max(keptLength + n, Math.max(4096, kept.length * 2))));
        }
        System.arraycopy(b, off, kept, keptLength, n);
        keptLength += n;
    }

    /** One attempt's read of the body: the kept bytes from its position, then the client's. */
    private final class Pass extends BodyInputStream {
        private int position;

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            if (len == 0) {
                return 0;
            }
            int n = fromKept(b, off, len);
            if (n > 0) {
                return n;
            }
            reading.lock(); // waits for a retired pass's read of the client to land (in kept, for this pass)
            try {
                n = fromKept(b, off, len);
                if (n > 0) {
                    return n;
                }
                n = client.read(b, off, len);
                if (n > 0) {
                    state.lock();
                    try {
                        keep(b, off, n, current != this);
                        position = keptLength;
                    } finally {
                        state.unlock();
                    }
                }
                return n;
            } finally {
                reading.unlock();
            }
        }

        /** Kept bytes from this pass's position; 0 when it has had them all. Fails once this pass is retired. */
        private int fromKept(byte[] b, int off, int len) throws IOException {
            state.lock();
            try {
                if (current != this) {
                    throw new IOException("the request body went to a retry of the request");
                }
                if (kept == null || position >= keptLength) {
                    return 0;
                }
                int n = Math.min(len, keptLength - position);
                System.arraycopy(kept, position, b, off, n);
                position += n;
                return n;
            } finally {
                state.unlock();
            }
        }

        @Override
        public boolean awaitData() throws IOException {
            state.lock();
            try {
                if (kept != null && position < keptLength) {
                    return true;
                }
            } finally {
                state.unlock();
            }
            reading.lock();
            try {
                return hasKept() || client.awaitData();
            } finally {
                reading.unlock();
            }
        }

        /** The kept bytes this pass has not had, else what the client's body has ready. */
        @Override
        public int readyBytes() throws IOException {
            state.lock();
            try {
                if (kept != null && position < keptLength) {
                    return keptLength - position;
                }
            } finally {
                state.unlock();
            }
            return client.readyBytes();
        }

        private boolean hasKept() {
            state.lock();
            try {
                return kept != null && position < keptLength;
            } finally {
                state.unlock();
            }
        }

        @Override
        public void startReading() throws IOException {
            client.startReading();
        }

        @Override
        public boolean isComplete() {
            return !hasKept() && client.isComplete();
        }

        @Override
        public Headers trailers() {
            return client.trailers();
        }
    }
}
