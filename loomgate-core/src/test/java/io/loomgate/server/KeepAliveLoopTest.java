package io.loomgate.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.testkit.ProvokesUnexpectedException;
import io.loomgate.testkit.RawClient;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/** What the connection loop guarantees every handler, on real sockets with real (shared) watchdogs. */
class KeepAliveLoopTest {

    @Test
    void pipelinedRequestsAreAnsweredInOrderEvenWhenTheHandlerLeavesTheirBodiesUnread() throws IOException {
        ExchangeHandler echoIndex = ex -> ex.respond(200, ex.request().target() + "#" + ex.requestIndex());
        try (RunningListener l = RunningListener.start(echoIndex); RawClient client = new RawClient(l.port())) {
            client.send("POST /a HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\n\r\nhello"
                    + "POST /b HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n"
                    + "GET /c HTTP/1.1\r\nHost: t\r\n\r\n");
            assertThat(client.read().bodyText()).isEqualTo("/a#0");
            assertThat(client.read().bodyText()).isEqualTo("/b#1");
            assertThat(client.read().bodyText()).isEqualTo("/c#2");
        }
    }

    @Test
    void anAbsoluteFormTargetReachesTheHandlerInOriginFormWithItsAuthorityAsHost() throws IOException {
        List<String> seen = new CopyOnWriteArrayList<>();
        ExchangeHandler h = ex -> {
            seen.add(ex.request().target() + " " + ex.request().headers().first("Host"));
            ex.respond(204, "");
        };
        try (RunningListener l = RunningListener.start(h); RawClient client = new RawClient(l.port())) {
            client.send("GET http://example.test:8080/a?b=1 HTTP/1.1\r\nHost: other\r\n\r\n"
                    + "GET http://example.test?q HTTP/1.1\r\nHost: other\r\n\r\n");
            assertThat(client.read().status()).isEqualTo(204);
            assertThat(client.read().status()).isEqualTo(204);
        }
        assertThat(seen).containsExactly("/a?b=1 example.test:8080", "/?q example.test");
    }

    @Test
    @ProvokesUnexpectedException("a handler that throws, and one that returns without answering: the 500 they get")
    void aHandlerThatFailsOrForgetsToAnswerGets500AndTheConnectionCloses() throws IOException {
        ExchangeHandler careless = ex -> {
            if (ex.request().target().equals("/throw")) {
                throw new IllegalStateException("handler bug, on purpose");
            }
        };
        try (RunningListener l = RunningListener.start(careless)) {
            for (String target : List.of("/throw", "/silent")) {
                try (RawClient client = new RawClient(l.port())) {
                    client.send("GET " + target + " HTTP/1.1\r\nHost: t\r\n\r\n");
                    RawClient.Response r = client.read();
                    assertThat(r.status()).as(target).isEqualTo(500);
                    assertThat(r.header("Connection")).isEqualTo("close");
                    assertThat(client.isClosedByPeer()).isTrue();
                }
            }
        }
    }

    @Test
    void anExpectationOtherThan100ContinueGets417() throws IOException {
        try (RunningListener l = RunningListener.start(ex -> ex.respond(200, "no"));
             RawClient client = new RawClient(l.port())) {
            client.send("PUT / HTTP/1.1\r\nHost: t\r\nExpect: 200-ok\r\nContent-Length: 1\r\n\r\nx");
            assertThat(client.read().status()).isEqualTo(417);
        }
    }

    @Test
    void aClientWaitingFor100ContinueGetsItWhenTheHandlerReadsTheBody() throws IOException {
        ExchangeHandler reader = ex -> ex.respond(200, new String(ex.requestBody().readAllBytes()));
        try (RunningListener l = RunningListener.start(reader); RawClient client = new RawClient(l.port())) {
            client.send("PUT / HTTP/1.1\r\nHost: t\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\n");
            assertThat(client.read().status()).isEqualTo(100);
            client.send("ok");
            assertThat(client.read().bodyText()).isEqualTo("ok");
        }
    }
}
