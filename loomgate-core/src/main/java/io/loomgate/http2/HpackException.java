package io.loomgate.http2;

/** A header block that cannot be decoded (RFC 7541): always a connection error, COMPRESSION_ERROR. */
final class HpackException extends Exception {
    HpackException(String message) {
        super(message, null, false, false);
    }
}
