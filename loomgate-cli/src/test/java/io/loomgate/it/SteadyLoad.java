package io.loomgate.it;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Closed-model load for reload tests: {@code workers} virtual threads, each sending GETs one after another through
 * one HTTP/1.1 client (keep-alive connections, about one per worker), counting answers that are 200 and recording
 * every other outcome (status or exception) as a failure with its text.
 */
final class SteadyLoad implements AutoCloseable {
    private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10)).build();
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final AtomicLong ok = new AtomicLong();
    private final Queue<String> failures = new ConcurrentLinkedQueue<>();
    private final List<Thread> threads = new ArrayList<>();

    SteadyLoad(int workers, URI target) {
        HttpRequest request = HttpRequest.newBuilder(target).timeout(Duration.ofSeconds(30)).build();
        for (int i = 0; i < workers; i++) {
            threads.add(Thread.ofVirtual().name("load-" + i).start(() -> {
                while (running.get()) {
                    try {
                        HttpResponse<String> r = client.send(request, HttpResponse.BodyHandlers.ofString());
                        if (r.statusCode() == 200) {
                            ok.incrementAndGet();
                        } else {
                            failures.add(r.statusCode() + " " + r.body());
                        }
                    } catch (InterruptedException e) {
                        return;
                    } catch (Exception e) {
                        if (running.get()) {
                            failures.add(e.toString());
                        }
                    }
                }
            }));
        }
    }

    long ok() {
        return ok.get();
    }

    List<String> failures() {
        return List.copyOf(failures);
    }

    /** Stops sending and waits for each worker's request in flight to end. */
    @Override
    public void close() throws InterruptedException {
        running.set(false);
        for (Thread t : threads) {
            t.join(Duration.ofSeconds(60));
        }
        client.close();
    }
}
