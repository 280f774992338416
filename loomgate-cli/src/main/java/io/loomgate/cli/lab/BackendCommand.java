package io.loomgate.cli.lab;

import io.loomgate.cli.DurationConverter;
import io.loomgate.cli.ShutdownSignals;
import io.loomgate.lab.backend.BackendSettings;
import io.loomgate.lab.backend.MockBackend;
import io.loomgate.threads.ThreadModel;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code loomgate backend}: runs the lab's mock origin until SIGTERM or Ctrl-C. */
@Command(name = "backend", mixinStandardHelpOptions = true,
        description = "Run the mock origin of the lab (/hello, /api/data, /bytes/{n}, /echo, /sse, /ws, /db ...).")
public final class BackendCommand implements Callable<Integer> {

    @Option(names = "--port", defaultValue = "8081", description = "TCP port (default ${DEFAULT-VALUE}; 0 picks one).")
    int port;

    @Option(names = "--address", defaultValue = "127.0.0.1", description = "Bind address (default ${DEFAULT-VALUE}).")
    String address;

    @Option(names = "--threads", defaultValue = "virtual",
            description = "Thread model: virtual, platform:N or cached (default ${DEFAULT-VALUE}).")
    String threads;

    @Option(names = "--latency", defaultValue = "100ms", converter = DurationConverter.class,
            description = "How long /api/data waits (default ${DEFAULT-VALUE}; per request: ?delay=ms).")
    Duration latency;

    @Option(names = "--db-pool", defaultValue = "10", description = "JDBC pool size of /db (default ${DEFAULT-VALUE}).")
    int dbPool;

    @Option(names = "--jdbc-url", description = "Database of /db (default: the bundled PostgreSQL).")
    String jdbcUrl;

    @Option(names = "--db", description = "Start the database now rather than on the first /db.")
    boolean startDb;

    @Override
    public Integer call() throws Exception {
        BackendSettings settings;
        try {
            settings = new BackendSettings(address, port, ThreadModel.parse(threads), latency, jdbcUrl, dbPool,
                    startDb);
        } catch (IllegalArgumentException e) {
            System.err.println("loomgate backend: " + e.getMessage());
            return 2;
        }
        MockBackend backend;
        try {
            backend = MockBackend.start(settings);
        } catch (IOException e) {
            System.err.println("loomgate backend: cannot start: " + e.getMessage());
            return 1;
        }
        System.out.println(backend.describe());
        System.out.flush();
        ShutdownSignals.serveUntilTerminated(() -> {
            backend.close();
            return 0;
        });
        return 0;
    }
}
