package io.loomgate.threads;

/**
 * A socket that can tell at once, without blocking and without arming a timer, whether its peer has sent anything or
 * closed since it was last read: the pool's check of an idle connection to an origin before it is lent again
 * (upstream.PooledConnection). The JDK's sockets answer it through their channel (a non-blocking read); the epoll
 * transport's, which are not channels, implement this. A timed read would do too, but on a virtual thread it arms a
 * timer, which under load can wait seconds to fire.
 */
public interface QuietCheck {
    /**
     * True when nothing has arrived (no byte, no end of stream, no error); false otherwise, or when another thread
     * is reading it (it is not idle). A byte found may be consumed: a connection with one is discarded anyway.
     */
    boolean quietNow();

    /**
     * Whether anything (a byte, the end of stream, an error) may have arrived since the last read, told without a
     * system call where the socket can (the epoll transport's readiness flags, set by its poller on every edge even
     * when no thread waits): false means {@link #quietNow} would say true, unless the event is still on its way to
     * the poller. The pool asks it on every lease and pays {@link #quietNow}'s read only when this says yes. True
     * when the socket cannot tell.
     */
    default boolean mayHaveNews() {
        return true;
    }
}
