package io.loomgate.upstream;

import io.loomgate.http1.HttpInput;
import io.loomgate.http1.HttpOutput;
import java.net.Socket;

/** A connection to one endpoint, lent by its pool to one exchange at a time. */
public final class PooledConnection {
    PooledConnection() {
        throw new UnsupportedOperationException("stub");
    }

    public Endpoint endpoint() {
        throw new UnsupportedOperationException("stub");
    }

    public Socket socket() {
        throw new UnsupportedOperationException("stub");
    }

    public HttpInput input() {
        throw new UnsupportedOperationException("stub");
    }

    public HttpOutput output() {
        throw new UnsupportedOperationException("stub");
    }

    /** The socket's read timeout (SO_TIMEOUT); zero for none. */
    public void setReadTimeout(java.time.Duration timeout) throws java.io.IOException {
        throw new UnsupportedOperationException("stub");
    }

    /** Whether this connection served an earlier exchange (so a failure on it may be a stale keep-alive). */
    public boolean reused() {
        throw new UnsupportedOperationException("stub");
    }
}
