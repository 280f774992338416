package io.loomgate.resilience;

/**
 * Thrown by a filter that answers with another route of this gateway ({@code fallbackUri: forward:/path}): the proxy
 * catches it, matches {@code path} against the routes again and runs the route it finds in place of this one. A
 * signal, not an error: it carries no stack trace.
 */
public final class FallbackForward extends RuntimeException {
    private final String path;

    public FallbackForward(String path) {
        super("forward:" + path, null, false, false);
        this.path = path;
    }

    public String path() {
        return path;
    }
}
