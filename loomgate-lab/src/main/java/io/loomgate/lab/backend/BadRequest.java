package io.loomgate.lab.backend;

/** A request the mock origin cannot serve as asked: answered 400 with this message. */
final class BadRequest extends RuntimeException {
    BadRequest(String message) {
        super(message);
    }
}
