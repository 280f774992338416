package io.loomgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.testkit.RawClient;
import io.loomgate.testkit.RunningGateway;
import io.loomgate.testkit.TestOrigin;
import io.loomgate.testkit.TestOrigin.Recorded;
import io.loomgate.testkit.TestOrigin.Reply;
import java.net.http.HttpResponse;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What passes through unchanged and what the gateway changes on the way, for plain GETs. */
class ProxyBasicsTest {

    @Test
    void forwardsPathAndQueryByteExact() throws Exception {
        try (TestOrigin origin = new TestOrigin(); RunningGateway gw = RunningGateway.to(origin);
             RawClient c = gw.raw()) {
            String target = "/a%2Fb/%7Euser/c;p=1?x=%20y&y=a+b&&z=%zz";
            c.send("GET " + target + " HTTP/1.1\r\nHost: example.test\r\n\r\n");
            assertThat(c.read().status()).isEqualTo(200);
            assertThat(origin.takeRequest().target()).isEqualTo(target);
        }
    }

    @Test
    void preservesHostByDefaultAndSendsTheUpstreamsWhenAsked() throws Exception {
        try (TestOrigin origin = new TestOrigin()) {
            try (RunningGateway gw = RunningGateway.to(origin); RawClient c = gw.raw()) {
                c.send("GET / HTTP/1.1\r\nHost: shop.example.test:8443\r\n\r\n").read();
                assertThat(origin.takeRequest().header("Host")).isEqualTo("shop.example.test:8443");
            }
            try (RunningGateway gw = RunningGateway.to(origin, "preserve-host: false"); RawClient c = gw.raw()) {
                c.send("GET / HTTP/1.1\r\nHost: shop.example.test\r\n\r\n").read();
                Recorded r = origin.takeRequest();
                assertThat(r.header("Host")).isEqualTo("127.0.0.1:" + origin.port());
                assertThat(r.header("X-Forwarded-Host")).isEqualTo("shop.example.test");
            }
        }
    }

    @Test
    void keepsRepeatedHeadersInOrderBothWays() throws Exception {
        try (TestOrigin origin = new TestOrigin(); RunningGateway gw = RunningGateway.to(origin);
             RawClient c = gw.raw()) {
            origin.enqueue(Reply.raw("HTTP/1.1 200 OK", List.of("Set-Cookie: a=1", "X-Other: x",
                    "Set-Cookie: b=2; Path=/", "Set-Cookie: c=3", "Content-Length: 2"), "ok"));
            c.send("GET / HTTP/1.1\r\nHost: h\r\nAccept: text/html\r\nX-Multi: one\r\nAccept: application/json\r\n"
                    + "X-Multi: two\r\n\r\n");
            RawClient.Response r = c.read();
            assertThat(r.headers("Set-Cookie")).containsExactly("a=1", "b=2; Path=/", "c=3");
            Recorded req = origin.takeRequest();
            assertThat(req.headers("Accept")).containsExactly("text/html", "application/json");
            assertThat(req.headers("X-Multi")).containsExactly("one", "two");
        }
    }

    @Test
    void addsViaBothWaysAndATraceparentUpstream() throws Exception {
        try (TestOrigin origin = new TestOrigin(); RunningGateway gw = RunningGateway.to(origin)) {
            HttpResponse<String> r = gw.get("/hello");
            assertThat(r.statusCode()).isEqualTo(200);
            assertThat(r.body()).isEqualTo("hello from origin");
            assertThat(r.headers().firstValue("Via")).hasValue("1.1 loomgate");
            Recorded req = origin.takeRequest();
            assertThat(req.header("Via")).isEqualTo("1.1 loomgate");
            assertThat(req.header("traceparent")).matches("00-[0-9a-f]{32}-[0-9a-f]{16}-01");
        }
    }

    @Test
    void continuesAValidTraceAndReplacesAnInvalidOne() throws Exception {
        try (TestOrigin origin = new TestOrigin(); RunningGateway gw = RunningGateway.to(origin)) {
            String incoming = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
            gw.send(gw.request("/").header("traceparent", incoming));
            String sent = origin.takeRequest().header("traceparent");
            assertThat(sent).startsWith("00-4bf92f3577b34da6a3ce929d0e0e4736-").doesNotContain("00f067aa0ba902b7");
            gw.send(gw.request("/").header("traceparent", "00-zz-bad"));
            assertThat(origin.takeRequest().header("traceparent")).doesNotContain("zz")
                    .matches("00-[0-9a-f]{32}-[0-9a-f]{16}-01");
        }
    }

    @Test
    void absoluteFormTargetsAreSentInOriginFormWithTheirAuthorityAsHost() throws Exception {
        try (TestOrigin origin = new TestOrigin(); RunningGateway gw = RunningGateway.to(origin);
             RawClient c = gw.raw()) {
            c.send("GET http://api.example.test/v1/items?id=3 HTTP/1.1\r\nHost: other\r\n\r\n");
            assertThat(c.read().status()).isEqualTo(200);
            Recorded r = origin.takeRequest();
            assertThat(r.target()).isEqualTo("/v1/items?id=3");
            assertThat(r.header("Host")).isEqualTo("api.example.test");
        }
    }

    @Test
    void answersOptionsAsteriskItself() throws Exception {
        try (TestOrigin origin = new TestOrigin(); RunningGateway gw = RunningGateway.to(origin);
             RawClient c = gw.raw()) {
            RawClient.Response r = c.send("OPTIONS * HTTP/1.1\r\nHost: h\r\n\r\n").read();
            assertThat(r.status()).isEqualTo(200);
            assertThat(r.header("Allow")).contains("GET");
            assertThat(origin.requestCount()).isZero();
        }
    }

    @Test
    void speaksHttp11UpstreamForAnHttp10ClientAndClosesAfterward() throws Exception {
        try (TestOrigin origin = new TestOrigin(); RunningGateway gw = RunningGateway.to(origin);
             RawClient c = gw.raw()) {
            RawClient.Response r = c.send("GET /x HTTP/1.0\r\n\r\n").read();
            assertThat(r.status()).isEqualTo(200);
            assertThat(r.bodyText()).isEqualTo("hello from origin");
            assertThat(origin.takeRequest().version()).isEqualTo("HTTP/1.1");
            assertThat(c.isClosedByPeer()).isTrue();
        }
    }
}
