package io.loomgate.lab.backend;

import io.loomgate.server.ConnectionListener;
import io.loomgate.server.Listener;
import io.loomgate.server.ListenerSettings;
import io.loomgate.threads.ConnectionExecutors;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.ExecutorService;

/**
 * The mock origin on a listener of the project's own server core, with its connections on the chosen thread model.
 * Lifecycle: {@link #start} (bound, serving, database started if asked) → {@link #close()} (listener drained, pool
 * and bundled database stopped, executor shut down).
 */
public final class MockBackend implements AutoCloseable {
    private final BackendSettings settings;
    private final MockOrigin origin;
    private final ExecutorService executor;
    private final Listener listener;

    private MockBackend(BackendSettings settings, MockOrigin origin, ExecutorService executor, Listener listener) {
        this.settings = settings;
        this.origin = origin;
        this.executor = executor;
        this.listener = listener;
    }

    public static MockBackend start(BackendSettings settings) throws IOException {
        MockOrigin origin = new MockOrigin(settings);
        ExecutorService executor = ConnectionExecutors.create(settings.threads(), "backend");
        Listener listener = new Listener(ListenerSettings.defaults(settings.address(), settings.port()), origin,
                executor, ConnectionListener.NOOP);
        MockBackend backend = new MockBackend(settings, origin, executor, listener);
        try {
            if (settings.startDb()) {
                origin.startDatabase();
            }
            listener.start();
        } catch (IOException | RuntimeException e) {
            backend.close();
            throw e;
        }
        return backend;
    }

    public int port() {
        return listener.port();
    }

    public BackendSettings settings() {
        return settings;
    }

    /** One line per fact, for the start-up banner. */
    public String describe() {
        return "mock origin on http://" + settings.address() + ":" + port() + ", threads " + settings.threads()
                + ", latency " + settings.latency().toMillis() + " ms, JDK " + Runtime.version().feature()
                + " (pinning cause: " + origin.pinningCause() + ")\n/db: " + origin.databaseDescription();
    }

    @Override
    public void close() {
        try {
            listener.drain(Duration.ofSeconds(1));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
            // never started: nothing to drain
        }
        origin.close();
        executor.shutdownNow();
    }
}
