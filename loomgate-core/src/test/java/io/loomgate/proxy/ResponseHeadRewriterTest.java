package io.loomgate.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.http.Headers;
import io.loomgate.http.ResponseHead;
import io.loomgate.http1.BodyFraming;
import org.junit.jupiter.api.Test;

/** The origin's response head, rewritten for the client. */
class ResponseHeadRewriterTest {

    private static ResponseHead head(String version, String... fields) {
        Headers h = new Headers();
        for (int i = 0; i < fields.length; i += 2) {
            h.add(fields[i], fields[i + 1]);
        }
        return new ResponseHead(version, 200, "OK", h);
    }

    @Test
    void connectionFieldsGoViaIsAppendedAndTheLengthIsLeftToTheServer() {
        ResponseHead h = head("HTTP/1.1", "Connection", "X-Secret, keep-alive", "X-Secret", "1",
                "Keep-Alive", "timeout=5", "Content-Length", "5", "Via", "1.1 cdn", "Set-Cookie", "a=1");

        ResponseHeadRewriter.ForClient answer = ResponseHeadRewriter.forClient(h, new BodyFraming.Fixed(5));

        assertThat(answer.framing()).isEqualTo(new BodyFraming.Fixed(5));
        assertThat(answer.originKeepsAlive()).isTrue();
        Headers out = h.headers();
        assertThat(out.contains("Connection")).isFalse();
        assertThat(out.contains("X-Secret")).isFalse();
        assertThat(out.contains("Keep-Alive")).isFalse();
        // left for the server, which keeps a field that spells the fixed length and replaces any other
        assertThat(out.first("Content-Length")).isEqualTo("5");
        assertThat(out.first("Via")).isEqualTo("1.1 cdn, " + ForwardedHeaders.VIA);
        assertThat(out.first("Set-Cookie")).isEqualTo("a=1");
    }

    @Test
    void aBodylessResponseKeepsItsContentLength() {
        ResponseHead h = head("HTTP/1.1", "Content-Length", "42"); // e.g. the answer to HEAD
        ResponseHeadRewriter.forClient(h, new BodyFraming.None());
        assertThat(h.headers().first("Content-Length")).isEqualTo("42");
        assertThat(h.headers().first("Via")).isEqualTo(ForwardedHeaders.VIA);
    }

    @Test
    void aFixedLengthResponseAFilterMadeBodilessLosesTheOriginsLength() {
        // a plugin's setResponse(response.withStatus(204)) on a 200 with a body: the server sets no length on a 204
        // (nor on a 304 over HTTP/2), so the origin's would reach the client describing a body it never gets
        for (int status : new int[] {204, 304}) {
            ResponseHead h = head("HTTP/1.1", "Content-Length", "5").withStatus(status);
            ResponseHeadRewriter.forClient(h, new BodyFraming.Fixed(5));
            assertThat(h.headers().contains("Content-Length")).as("status %d", status).isFalse();
        }
    }

    @Test
    void aBodyUntilCloseIsRechunkedForTheClient() {
        assertThat(ResponseHeadRewriter.forClient(head("HTTP/1.1"), new BodyFraming.UntilClose()).framing())
                .isEqualTo(BodyFraming.CHUNKED);
    }

    @Test
    void theOriginsConnectionIsReusableByItsVersionsRules() {
        assertThat(ResponseHeadRewriter.keepsAlive(head("HTTP/1.1"))).isTrue();
        assertThat(ResponseHeadRewriter.keepsAlive(head("HTTP/1.1", "Connection", "close"))).isFalse();
        assertThat(ResponseHeadRewriter.keepsAlive(head("HTTP/1.0"))).isFalse();
        assertThat(ResponseHeadRewriter.keepsAlive(head("HTTP/1.0", "Connection", "keep-alive"))).isTrue();
        assertThat(ResponseHeadRewriter.forClient(head("HTTP/1.1", "Connection", "close"), new BodyFraming.None())
                .originKeepsAlive()).isFalse();
    }

    @Test
    void aSwitchKeepsOnlyTheUpgradeItAgreedTo() {
        ResponseHead h = new ResponseHead("HTTP/1.1", 101, "Switching Protocols", new Headers()
                .add("Upgrade", "websocket").add("Connection", "Upgrade, X-Hop").add("X-Hop", "1")
                .add("Sec-WebSocket-Accept", "abc"));
        ResponseHeadRewriter.forTunnel(h);
        assertThat(h.headers().first("Upgrade")).isEqualTo("websocket");
        assertThat(h.headers().first("Connection")).isEqualTo("Upgrade");
        assertThat(h.headers().contains("X-Hop")).isFalse();
        assertThat(h.headers().first("Sec-WebSocket-Accept")).isEqualTo("abc");
    }

    @Test
    void anInterimHeadLosesItsConnectionFields() {
        ResponseHead early = new ResponseHead("HTTP/1.1", 103, "Early Hints", new Headers()
                .add("Link", "</style.css>; rel=preload").add("Connection", "keep-alive"));
        ResponseHeadRewriter.interim(early);
        assertThat(early.headers().contains("Connection")).isFalse();
        assertThat(early.headers().first("Link")).isEqualTo("</style.css>; rel=preload");
    }
}
