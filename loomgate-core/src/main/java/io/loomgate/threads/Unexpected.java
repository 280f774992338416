package io.loomgate.threads;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one log of exceptions no code expected, caught where they would otherwise end a thread's work: a handler that
 * threw or returned without a response (the client got a 500), a connection loop or the idle-connection poller that
 * failed. Each is a bug. They all go to the logger {@value #NAME}, so an operator can alert on it and the tests fail
 * on any event of it (the cli module's {@code UnexpectedExceptionCheck}, and {@code JarProcess} for a gateway run as
 * a process); matching message text would break when a message is reworded.
 */
public final class Unexpected {
    /** The logger's name; its events are ERRORs, with the exception when there is one. */
    public static final String NAME = "loomgate.unexpected";
    public static final Logger LOG = LoggerFactory.getLogger(NAME);

    private Unexpected() {
    }
}
