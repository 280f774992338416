package io.loomgate.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.testkit.RawClient;
import io.loomgate.threads.ConnectionExecutors;
import io.loomgate.threads.ThreadModel;
import io.loomgate.threads.Watchdog;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Drain and refusal: what a listener does with its connections when it stops. */
class ListenerLifecycleTest {

    @Test
    void drainClosesIdleConnectionsAndLetsABusyOneFinishItsRequest() throws Exception {
        CountDownLatch inHandler = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        ExchangeHandler h = ex -> {
            if (ex.request().target().equals("/slow")) {
                inHandler.countDown();
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            ex.respond(200, "done " + ex.request().target());
        };
        try (RunningListener l = RunningListener.start(h);
             RawClient idle = new RawClient(l.port());
             RawClient busy = new RawClient(l.port())) {
            idle.send("GET /fast HTTP/1.1\r\nHost: t\r\n\r\n");
            assertThat(idle.read().bodyText()).isEqualTo("done /fast");
            busy.send("GET /slow HTTP/1.1\r\nHost: t\r\n\r\n");
            assertThat(inHandler.await(30, TimeUnit.SECONDS)).isTrue();

            CompletableFuture<Boolean> drained = CompletableFuture.supplyAsync(() -> {
                try {
                    return l.listener.drain(Duration.ofSeconds(60));
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            });
            assertThat(idle.isClosedByPeer()).as("the idle connection is closed at once").isTrue();
            assertThat(drained).isNotDone();
            release.countDown();
            RawClient.Response r = busy.read();
            assertThat(r.bodyText()).as("the request in flight is answered in full").isEqualTo("done /slow");
            // Connection: close when drain marked it before the response (the usual case); either way it then closes.
            assertThat(busy.isClosedByPeer()).isTrue();
            assertThat(drained.get(60, TimeUnit.SECONDS)).as("every request finished in time").isTrue();
            assertThat(l.listener.isStopping()).isTrue();
        }
    }

    @Test
    void aConnectionTheExecutorRefusesIsClosedUnservedAndReportedAsRejected() throws Exception {
        CompletableFuture<InetSocketAddress> rejected = new CompletableFuture<>();
        ConnectionListener events = new ConnectionListener() {
            @Override
            public void connectionRejected(InetSocketAddress remote) {
                rejected.complete(remote);
            }
        };
        ExecutorService stopped = ConnectionExecutors.create(ThreadModel.VIRTUAL, "refusing");
        stopped.shutdown(); // as during a drain: accepted connections can no longer be run
        Listener listener = new Listener(ListenerSettings.defaults("127.0.0.1", 0), null, ex -> ex.respond(200, "no"),
                stopped, events, Watchdog.shared(), null).start();
        try (RawClient client = new RawClient(listener.port())) {
            client.send("GET / HTTP/1.1\r\nHost: t\r\n\r\n");
            assertThat(client.isClosedByPeer()).isTrue();
            assertThat(rejected.get(30, TimeUnit.SECONDS).getPort()).isEqualTo(client.socket().getLocalPort());
            assertThat(listener.openConnections()).isZero();
        } finally {
            listener.close();
        }
    }

    @Test
    void aListenerThatCannotBindSaysWhere() throws IOException {
        try (RunningListener first = RunningListener.start(ex -> ex.respond(200, "x"))) {
            Listener second = new Listener(ListenerSettings.defaults("127.0.0.1", first.port()),
                    ex -> ex.respond(200, "y"), ConnectionExecutors.create(ThreadModel.VIRTUAL, "t"),
                    ConnectionListener.NOOP);
            org.assertj.core.api.Assertions.assertThatThrownBy(second::start).isInstanceOf(IOException.class)
                    .hasMessageStartingWith("cannot listen on 127.0.0.1:" + first.port() + ": ");
        }
    }
}
