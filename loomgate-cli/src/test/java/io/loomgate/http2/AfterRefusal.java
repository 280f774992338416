package io.loomgate.http2;

import java.io.IOException;

/**
 * What follows a refusal while the refused upload's read of the client is pending (session 59): the cases of
 * {@link RefusedStreamAfterBodyTest}'s pending-read tests, with what each must end with.
 */
enum AfterRefusal {
    /** The client sends nothing more: its read timeout ends the pending read. */
    CLIENT_TIMES_OUT,
    /** The client closes its connection. */
    CLIENT_LEAVES,
    /** The retry's dial is refused (the origin went away with its GOAWAY); the client waits, sending nothing. */
    RETRY_REFUSED,
    /**
     * The origin refuses every attempt (REFUSED_STREAM, more times than the gateway's three retries: the retries
     * spent); the client waits, sending nothing (session 60).
     */
    EVERY_ATTEMPT_REFUSED;

    /** Whether the exchange ends in the gateway's 502 while the client waits. */
    boolean answered502() {
        return this == RETRY_REFUSED || this == EVERY_ATTEMPT_REFUSED;
    }

    /** The origin for this case: refusing at {@code bytes} of the body. */
    ScriptedH2cOrigin origin(int bytes) throws IOException {
        ScriptedH2cOrigin origin = RefusedStreamAfterBodyTest.refusingAt(this == EVERY_ATTEMPT_REFUSED
                ? ScriptedH2cOrigin.Refusal.REFUSED_STREAM : ScriptedH2cOrigin.Refusal.GOAWAY_BELOW, bytes);
        origin.goneAfterRefusal = this == RETRY_REFUSED;
        origin.refusals.set(this == EVERY_ATTEMPT_REFUSED ? 10 : 1);
        return origin;
    }

    /** The access log's failure kind the exchange must end with. */
    String kind() {
        return switch (this) {
            case CLIENT_TIMES_OUT -> "client_timeout";
            case CLIENT_LEAVES -> "client_aborted";
            case RETRY_REFUSED -> "connect_refused";
            case EVERY_ATTEMPT_REFUSED -> "upstream_reset";
        };
    }

    /**
     * The status the access log must write (session 60): the one the client got, or 499 when it got none (it
     * left); until session 60 a client that left was logged 400, an answer it never had.
     */
    int loggedStatus() {
        return switch (this) {
            case CLIENT_TIMES_OUT -> 408;
            case CLIENT_LEAVES -> 499;
            case RETRY_REFUSED, EVERY_ATTEMPT_REFUSED -> 502;
        };
    }

    /** The {@code loomgate_requests_total} status class, agreeing with the log: {@code none} for no response. */
    String statusClass() {
        return this == CLIENT_LEAVES ? "none" : loggedStatus() / 100 + "xx";
    }
}
