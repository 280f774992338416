package io.loomgate.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.threads.ConnectionExecutors;
import io.loomgate.threads.ThreadModel;
import io.loomgate.threads.Watchdog;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/** A {@link Listener} on an ephemeral loopback port for one test, closed with it. */
final class RunningListener implements AutoCloseable {
    private static final long WAIT_NANOS = TimeUnit.SECONDS.toNanos(30);

    final Listener listener;

    private RunningListener(Listener listener) {
        this.listener = listener;
    }

    static RunningListener start(ListenerSettings settings, ExchangeHandler handler, ConnectionListener events,
                                 Watchdog reads, Watchdog writes) throws IOException {
        return new RunningListener(new Listener(settings, null, handler,
                ConnectionExecutors.create(ThreadModel.VIRTUAL, "test-conn"), events, reads, writes).start());
    }

    static RunningListener start(ExchangeHandler handler) throws IOException {
        return new RunningListener(new Listener(ListenerSettings.defaults("127.0.0.1", 0), handler,
                ConnectionExecutors.create(ThreadModel.VIRTUAL, "test-conn"), ConnectionListener.NOOP).start());
    }

    static ListenerSettings settings(Duration headerTimeout, Duration idleTimeout, Duration readTimeout) {
        ListenerSettings d = ListenerSettings.defaults("127.0.0.1", 0);
        return new ListenerSettings(d.address(), d.port(), d.backlog(), d.maxConnections(), headerTimeout,
                idleTimeout, readTimeout, d.limits());
    }

    int port() {
        return listener.port();
    }

    /** Polls until the condition holds (no fixed sleeps); fails after a generous deadline for a loaded machine. */
    static void await(String what, BooleanSupplier condition) {
        long end = System.nanoTime() + WAIT_NANOS;
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime() - end).as(what).isNegative();
            Thread.onSpinWait();
            Thread.yield();
        }
    }

    @Override
    public void close() {
        listener.close();
    }
}
