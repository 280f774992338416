package io.loomgate.upstream;

import java.io.IOException;
import java.net.ConnectException;
import java.net.SocketTimeoutException;

/**
 * The failure a request waiting on a dial gets when that dial fails: an exception of the dial's own kind and message
 * (so the proxy answers it as it answers the dialler: 502 {@code connect_timeout}, {@code connect_refused},
 * {@code upstream_tls}), made for that waiter (its own stack), with the dial's failure as its cause. The dial is
 * counted once ({@link PoolListener#connectFailed}, by the {@link Connector}); the waiters are requests it failed.
 */
final class WaiterFailure {
    private WaiterFailure() {
    }

    /** One such exception, for one waiter ({@link WaiterQueue#failAll} asks once per waiter). */
    static IOException of(Throwable dialFailure) {
        String message = dialFailure.getMessage();
        IOException e = switch (dialFailure) {
            case UpstreamTlsException t -> new UpstreamTlsException(message, t);
            case SocketTimeoutException t -> new SocketTimeoutException(message);
            case ConnectException c -> new ConnectException(message);
            // Anything else the dial threw (the origin closed before its SETTINGS, a provider's RuntimeException):
            // the request could not connect, classified as the dialler's plain IOException is.
            default -> new IOException(message);
        };
        if (e.getCause() == null) {
            e.initCause(dialFailure);
        }
        return e;
    }
}
