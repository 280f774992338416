package io.loomgate.server;

import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

/** Runs a test's blocking socket call on a virtual thread, as the gateway does, with a bound on the wait for it. */
final class OnVirtualThread {
    private OnVirtualThread() {
    }

    /** The body's result, or its exception; a {@link java.util.concurrent.TimeoutException} after {@code seconds}. */
    static <T> T call(Callable<T> body, long seconds) throws Exception {
        CompletableFuture<T> f = new CompletableFuture<>();
        Thread.ofVirtual().start(() -> {
            try {
                f.complete(body.call());
            } catch (Throwable t) {
                f.completeExceptionally(t);
            }
        });
        try {
            return f.get(seconds, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            throw e.getCause() instanceof Exception x ? x : e;
        }
    }
}
