package io.loomgate.http1;


/** The body of a message that has none: always at its end, and complete. Stateless, so one instance serves all. */
final class EmptyBody extends BodyInputStream {
    static final EmptyBody INSTANCE = new EmptyBody();

    private EmptyBody() {
    }

    @Override
    public int read() {
        return -1;
    }

    @Override
    public int read(byte[] b, int off, int len) {
        return asksForNothing(b, off, len) ? 0 : -1;
    }

    @Override
    public boolean isComplete() {
        return true;
    }

    @Override
    public boolean drain(long maxBytes) {
        return true;
    }
}
