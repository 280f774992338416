package io.loomgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.testkit.RawClient;
import io.loomgate.testkit.RunningGateway;
import io.loomgate.testkit.TestOrigin;
import io.loomgate.testkit.TestOrigin.Recorded;
import io.loomgate.testkit.TestOrigin.Reply;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Every way a body can be framed, on each side, and the responses that have none. */
class BodyFramingTest {

    @Test
    void contentLengthUploadArrivesWhole() throws Exception {
        try (TestOrigin origin = new TestOrigin(); RunningGateway gw = RunningGateway.to(origin);
             RawClient c = gw.raw()) {
            c.send("PUT /f HTTP/1.1\r\nHost: h\r\nContent-Length: 11\r\n\r\nhello world");
            assertThat(c.read().status()).isEqualTo(200);
            Recorded r = origin.takeRequest();
            assertThat(r.bodyText()).isEqualTo("hello world");
            assertThat(r.header("Content-Length")).isEqualTo("11");
        }
    }

    @Test
    void chunkedUploadIsForwardedChunkedWithItsTrailers() throws Exception {
        try (TestOrigin origin = new TestOrigin(); RunningGateway gw = RunningGateway.to(origin);
             RawClient c = gw.raw()) {
            c.send("POST /up HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n"
                    + "5;ext=1\r\nhello\r\n6\r\n world\r\n0\r\nX-Checksum: abc\r\n\r\n");
            assertThat(c.read().status()).isEqualTo(200);
            Recorded r = origin.takeRequest();
            assertThat(r.bodyText()).isEqualTo("hello world");
            assertThat(r.header("Transfer-Encoding")).isEqualTo("chunked");
            assertThat(r.trailers()).containsEntry("X-Checksum", "abc");
        }
    }

    @Test
    void chunkedResponseKeepsItsTrailers() throws Exception {
        try (TestOrigin origin = new TestOrigin(); RunningGateway gw = RunningGateway.to(origin);
             RawClient c = gw.raw()) {
            origin.enqueue(Reply.raw("HTTP/1.1 200 OK", List.of("Transfer-Encoding: chunked"),
                    "3\r\nabc\r\n", "2\r\nde\r\n0\r\nX-Digest: d1\r\n\r\n"));
            RawClient.Response r = c.send("GET / HTTP/1.1\r\nHost: h\r\n\r\n").read();
            assertThat(r.bodyText()).isEqualTo("abcde");
            assertThat(r.complete()).isTrue();
            assertThat(r.trailers()).anySatisfy(t -> assertThat(t).containsExactly("X-Digest", "d1"));
        }
    }

    @Test
    void aCloseDelimitedResponseIsRechunkedSoTheClientConnectionSurvives() throws Exception {
        try (TestOrigin origin = new TestOrigin(); RunningGateway gw = RunningGateway.to(origin);
             RawClient c = gw.raw()) {
            origin.enqueue(Reply.raw("HTTP/1.1 200 OK", List.of("Connection: close"), "until ", "close")
                    .with(TestOrigin.Effect.CLOSE_AFTER_RESPONSE));
            RawClient.Response r = c.send("GET /a HTTP/1.1\r\nHost: h\r\n\r\n").read();
            assertThat(r.header("Transfer-Encoding")).isEqualTo("chunked");
            assertThat(r.bodyText()).isEqualTo("until close");
            assertThat(c.send("GET /b HTTP/1.1\r\nHost: h\r\n\r\n").read().status()).isEqualTo(200);
        }
    }

    @Test
    void headResponseKeepsContentLengthButSendsNoBody() throws Exception {
        try (TestOrigin origin = new TestOrigin(); RunningGateway gw = RunningGateway.to(origin);
             RawClient c = gw.raw()) {
            origin.enqueue(Reply.raw("HTTP/1.1 200 OK", List.of("Content-Length: 1234"), "never sent"));
            RawClient.Response r = c.send("HEAD /big HTTP/1.1\r\nHost: h\r\n\r\n").read("HEAD");
            assertThat(r.header("Content-Length")).isEqualTo("1234");
            // the next response on the same connection must start right where the HEAD response ended
            RawClient.Response next = c.send("GET /next HTTP/1.1\r\nHost: h\r\n\r\n").read();
            assertThat(next.bodyText()).isEqualTo("hello from origin");
        }
    }

    @Test
    void noContentAndNotModifiedCarryNoBody() throws Exception {
        try (TestOrigin origin = new TestOrigin(); RunningGateway gw = RunningGateway.to(origin);
             RawClient c = gw.raw()) {
            origin.enqueue(Reply.raw("HTTP/1.1 204 No Content", List.of()),
                    Reply.raw("HTTP/1.1 304 Not Modified", List.of("ETag: \"v1\"")));
            assertThat(c.send("GET /a HTTP/1.1\r\nHost: h\r\n\r\n").read().status()).isEqualTo(204);
            RawClient.Response notModified = c.send("GET /b HTTP/1.1\r\nHost: h\r\n\r\n").read();
            assertThat(notModified.status()).isEqualTo(304);
            assertThat(notModified.header("ETag")).isEqualTo("\"v1\"");
            assertThat(c.send("GET /c HTTP/1.1\r\nHost: h\r\n\r\n").read().status()).isEqualTo(200);
        }
    }

    @Test
    void informationalResponsesGoThroughBeforeTheFinalOne() throws Exception {
        try (TestOrigin origin = new TestOrigin(); RunningGateway gw = RunningGateway.to(origin);
             RawClient c = gw.raw()) {
            origin.enqueue(Reply.raw("HTTP/1.1 103 Early Hints", List.of("Link: </s.css>; rel=preload",
                    "", "HTTP/1.1 200 OK", "Content-Length: 2"), "ok"));
            c.send("GET / HTTP/1.1\r\nHost: h\r\n\r\n");
            RawClient.Response hints = c.read();
            assertThat(hints.status()).isEqualTo(103);
            assertThat(hints.header("Link")).isEqualTo("</s.css>; rel=preload");
            assertThat(c.read().bodyText()).isEqualTo("ok");
        }
    }

    @Test
    void expectContinueGetsA100BeforeTheBodyIsSent() throws Exception {
        try (TestOrigin origin = new TestOrigin(); RunningGateway gw = RunningGateway.to(origin);
             RawClient c = gw.raw()) {
            c.send("PUT /big HTTP/1.1\r\nHost: h\r\nContent-Length: 4\r\nExpect: 100-continue\r\n\r\n");
            assertThat(c.read().status()).isEqualTo(100);
            c.send("data");
            assertThat(c.read().status()).isEqualTo(200);
            Recorded r = origin.takeRequest();
            assertThat(r.bodyText()).isEqualTo("data");
            assertThat(r.header("Expect")).isNull();
        }
    }

    @Test
    void expectContinueToAMissingRouteIsRefusedWithoutInvitingTheBody() throws Exception {
        String yaml = "routes:\n  - id: only\n    uri: ${ORIGIN}\n    predicates: [ \"Path=/only/**\" ]\n";
        try (TestOrigin origin = new TestOrigin();
             RunningGateway gw = RunningGateway.start(yaml, java.util.Map.of("ORIGIN", origin.uri()));
             RawClient c = gw.raw()) {
            c.send("PUT /elsewhere HTTP/1.1\r\nHost: h\r\nContent-Length: 4\r\nExpect: 100-continue\r\n\r\n");
            RawClient.Response r = c.read();
            assertThat(r.status()).isEqualTo(404);
            assertThat(r.header("Connection")).isEqualTo("close");
        }
    }
}
