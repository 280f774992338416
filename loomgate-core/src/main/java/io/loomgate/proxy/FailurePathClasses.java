package io.loomgate.proxy;

import io.loomgate.upstream.EvictionReason;
import java.nio.channels.ClosedChannelException;
import java.util.List;

/**
 * The classes an exchange's failure path uses, initialised when the proxy is made instead of at its first failure.
 * C2 compiles the proxy path's roots ({@code ProxyHandler.exchange}, {@code ClientConnection.serveStream}, ...) from
 * traffic that has not failed yet, and an access to a class not initialised by then is compiled as an uncommon trap
 * ({@code uninitialized}): the first failure deoptimises every thread that reaches it and makes the whole root not
 * entrant, to be compiled again under load. At W9 that first failure is h2load's end, which cancels ~2,000 streams
 * at once just before the measured window (journal 2026-11-30-s46-w9cancel: the ~1,400 traps at
 * {@code exchange:85}, {@code getstatic FailureClassifier$Stage}). The list is what {@code -Xlog:class+init} showed
 * initialised at that moment. Unlike a branch never taken, this does not depend on any profile, the AOT cache's
 * included (the cache holds classes loaded and linked, not initialised). The metrics' two ({@code UpstreamErrorKind},
 * {@code RecentError}) are initialised by {@code GatewayMetrics}, since this package may not name the metrics' package.
 */
final class FailurePathClasses {
    /** Named as classes so that a rename is a compile error; the JDK's one exception among them. */
    private static final List<Class<?>> CLASSES = List.of(FailureClassifier.Stage.class, FailureClassifier.class,
            ProxyFailure.class, ProxyFailure.Kind.class, ProxyFailure.Source.class, LocalReplies.class,
            DrainAfterCancel.class, EvictionReason.class, ClosedChannelException.class);

    private FailurePathClasses() {
    }

    /** Initialises them all (once per JVM; a class already initialised costs a lookup). */
    static void initialise() {
        try {
            for (Class<?> c : CLASSES) {
                Class.forName(c.getName(), true, c.getClassLoader());
            }
        } catch (ClassNotFoundException e) {
            throw new IllegalStateException("a failure-path class is missing from the gateway's jar: " + e, e);
        }
    }
}
