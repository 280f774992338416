package io.loomgate.threads;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The thread models as written in configuration, and the executors they become. */
class ConnectionExecutorsTest {

    @Test
    void parsesEveryWrittenForm() {
        assertThat(ThreadModel.parse(" Virtual ")).isEqualTo(ThreadModel.VIRTUAL);
        assertThat(ThreadModel.parse("cached")).isInstanceOf(ThreadModel.Cached.class);
        assertThat(ThreadModel.parse("platform")).isEqualTo(new ThreadModel.Platform(200));
        assertThat(ThreadModel.parse("platform:16")).isEqualTo(new ThreadModel.Platform(16));
        assertThat(ThreadModel.parse("platform(8)")).isEqualTo(new ThreadModel.Platform(8));
        assertThat(ThreadModel.parse("platform:16").toString()).isEqualTo("platform:16");
    }

    @Test
    void refusesWhatItCannotRun() {
        assertThatThrownBy(() -> ThreadModel.parse("green"))
                .hasMessage("expected a thread model: virtual, cached, platform or platform:N (N >= 1), got 'green'");
        assertThatThrownBy(() -> ThreadModel.parse("platform:0"))
                .hasMessage("platform thread count must be at least 1, got 0");
        assertThatThrownBy(() -> ThreadModel.parse("platform:x")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aThreadBesideAConnectionsIsOfItsModel() throws Exception {
        for (ThreadModel model : new ThreadModel[] {ThreadModel.VIRTUAL, new ThreadModel.Platform(2)}) {
            try (ExecutorService e = ConnectionExecutors.create(model, "conn")) {
                Thread beside = e.submit(() -> {
                    Thread t = ConnectionExecutors.startBeside("beside", () -> { });
                    t.join();
                    return t;
                }).get(30, TimeUnit.SECONDS);
                assertThat(beside.isVirtual()).as(model.toString()).isEqualTo(model == ThreadModel.VIRTUAL);
                assertThat(beside.isDaemon()).isTrue();
                assertThat(beside.getName()).isEqualTo("beside");
            }
        }
    }

    /**
     * A connection's thread and a thread started beside the connections (HTTP/2's streams) enter their task through
     * different lambdas: each lambda's {@code task.run()} is a root C2 compiles, and one shared by both was compiled
     * for the connections' task during HTTP/1.1 and trapped (class_check) at HTTP/2's first streams
     * (docs/journal/2026-12-01-s53-w9jit.md).
     */
    @Test
    void connectionsAndStreamsEnterTheirTasksThroughDifferentLambdas() throws Exception {
        Callable<String> caller = () -> StackWalker.getInstance().walk(frames -> frames
                .filter(f -> f.getClassName().equals(ConnectionExecutors.class.getName()))
                .map(StackWalker.StackFrame::getMethodName).findFirst().orElse("none"));
        String connection;
        try (ExecutorService e = ConnectionExecutors.create(ThreadModel.VIRTUAL, "vt")) {
            connection = e.submit(caller).get(30, TimeUnit.SECONDS);
        }
        String[] beside = new String[1];
        ConnectionExecutors.startVirtual("stream", () -> {
            try {
                beside[0] = caller.call();
            } catch (Exception ex) {
                throw new IllegalStateException(ex);
            }
        }).join(30_000);
        assertThat(connection).startsWith("lambda$counted");
        assertThat(beside[0]).startsWith("lambda$countedBeside");
    }

    @Test
    void virtualConnectionsRunOnVirtualThreadsNamedByPrefix() throws Exception {
        try (ExecutorService e = ConnectionExecutors.create(ThreadModel.VIRTUAL, "vt")) {
            Thread t = e.submit(Thread::currentThread).get(30, TimeUnit.SECONDS);
            assertThat(t.isVirtual()).isTrue();
            assertThat(t.getName()).startsWith("vt-");
        }
    }

    @Test
    void aPlatformPoolRunsAtMostItsSizeAtOnce() throws Exception {
        Set<Thread> seen = ConcurrentHashMap.newKeySet();
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch started = new CountDownLatch(2);
        try (ExecutorService e = ConnectionExecutors.create(new ThreadModel.Platform(2), "pt")) {
            for (int i = 0; i < 6; i++) {
                e.execute(() -> {
                    seen.add(Thread.currentThread());
                    started.countDown();
                    try {
                        release.await();
                    } catch (InterruptedException ex) {
                        Thread.currentThread().interrupt();
                    }
                });
            }
            assertThat(started.await(30, TimeUnit.SECONDS)).isTrue();
            release.countDown();
        }
        assertThat(seen).hasSize(2).allMatch(t -> !t.isVirtual() && t.isDaemon() && t.getName().startsWith("pt-"));
    }
}
