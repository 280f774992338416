package io.loomgate.ratelimit;

/** A store could not answer (down, slow past its timeout, refused the script); the request is then allowed. */
final class StoreUnavailableException extends RuntimeException {
    StoreUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
