package io.loomgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.testkit.RawClient;
import io.loomgate.testkit.RunningGateway;
import io.loomgate.testkit.TestOrigin;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The Spring Cloud Gateway filters of issue 37 part 3 that change or check the request and response heads, each on
 * a real request through the gateway to an origin.
 */
class ScgRequestFiltersTest {

    @Test
    void preserveHostHeaderSendsTheClientsHostEvenWhereTheRouteWouldNot() throws Exception {
        try (TestOrigin origin = new TestOrigin();
             RunningGateway gw = RunningGateway.to(origin, "preserve-host: false",
                     "filters: [ PreserveHostHeader ]");
             RawClient c = gw.raw()) {
            assertThat(c.send("GET /a HTTP/1.1\r\nHost: api.example.com\r\n\r\n").read().status()).isEqualTo(200);
            assertThat(origin.takeRequest().header("Host")).isEqualTo("api.example.com");
        }
        try (TestOrigin origin = new TestOrigin();
             RunningGateway gw = RunningGateway.to(origin, "preserve-host: false");
             RawClient c = gw.raw()) {
            assertThat(c.send("GET /a HTTP/1.1\r\nHost: api.example.com\r\n\r\n").read().status()).isEqualTo(200);
            assertThat(origin.takeRequest().header("Host")).isEqualTo("127.0.0.1:" + origin.port());
        }
    }

    @Test
    void requestHeaderSizeAnswers431NamingEachFieldOverTheLimit() throws Exception {
        try (TestOrigin origin = new TestOrigin();
             RunningGateway gw = RunningGateway.to(origin, "filters: [ \"RequestHeaderSize=1000B\" ]");
             RawClient c = gw.raw()) {
            // 'X-Big' counts its name and each of its values: 5 + 600 + 400 = 1005 bytes, over 1000.
            RawClient.Response r = c.send("GET /a HTTP/1.1\r\nHost: gw\r\nX-Big: " + "a".repeat(600)
                    + "\r\nX-Big: " + "b".repeat(400) + "\r\nX-Fine: " + "c".repeat(900) + "\r\n\r\n").read();
            assertThat(r.status()).isEqualTo(431);
            assertThat(r.header("errorMessage")).isEqualTo("Request Header/s size is larger than permissible limit "
                    + "(1000B). Request Header/s size for 'X-Big' is 1005B.");
            assertThat(origin.requestCount()).isZero();
            RawClient.Response fits = c.send("GET /a HTTP/1.1\r\nHost: gw\r\nX-Big: " + "a".repeat(995)
                    + "\r\n\r\n").read();
            assertThat(fits.status()).isEqualTo(200);
            assertThat(origin.takeRequest().header("X-Big")).hasSize(995);
        }
        try (TestOrigin origin = new TestOrigin();
             RunningGateway gw = RunningGateway.to(origin, "filters: [ { name: RequestHeaderSize, args: "
                     + "{ maxSize: 1KB, errorHeaderName: X-Why } } ]");
             RawClient c = gw.raw()) {
            RawClient.Response r = c.send("GET /a HTTP/1.1\r\nHost: gw\r\nCookie: " + "k".repeat(1100)
                    + "\r\n\r\n").read();
            assertThat(r.status()).isEqualTo(431);
            assertThat(r.header("X-Why")).isEqualTo("Request Header/s size is larger than permissible limit "
                    + "(1024B). Request Header/s size for 'Cookie' is 1106B.");
        }
    }

    @Test
    void rewriteRequestParameterReplacesEveryPairOfThatNameWithOneAndOnlyWhenPresent() throws Exception {
        try (TestOrigin origin = new TestOrigin();
             RunningGateway gw = RunningGateway.to(origin, "filters: [ \"RewriteRequestParameter=campaign,fall 2023\" ]");
             RawClient c = gw.raw()) {
            assertThat(c.send("GET /products?campaign=old&x=%41&campaign=older HTTP/1.1\r\nHost: gw\r\n\r\n")
                    .read().status()).isEqualTo(200);
            assertThat(origin.takeRequest().target()).isEqualTo("/products?x=%41&campaign=fall%202023");
            assertThat(c.send("GET /products?other=1 HTTP/1.1\r\nHost: gw\r\n\r\n").read().status())
                    .isEqualTo(200);
            assertThat(origin.takeRequest().target()).isEqualTo("/products?other=1");
        }
    }

    private static TestOrigin.Reply created(String field, String location) {
        return TestOrigin.Reply.raw("HTTP/1.1 201 Created", List.of(field + ": " + location, "Content-Length: 0"));
    }

    @Test
    void rewriteLocationResponseHeaderPutsTheGatewaysHostInTheOriginsLocation() throws Exception {
        try (TestOrigin origin = new TestOrigin();
             RunningGateway gw = RunningGateway.to(origin,
                     "filters: [ \"RewriteLocationResponseHeader=AS_IN_REQUEST, Location, ,\" ]");
             RawClient c = gw.raw()) {
            String v2 = "https://object-service.prod.example.net/v2/some/object/id";
            // SCG's page: a request without a version in its path has the origin's host:port and version replaced.
            origin.enqueue(created("Location", v2), created("Location", v2),
                    created("Location", "ftp://files.internal:2121/v2/f"),
                    created("Location", "gopher://object-service/v2/x"));
            assertThat(c.send("POST /some/object/name HTTP/1.1\r\nHost: api.example.com\r\nContent-Length: 0\r\n\r\n")
                    .read().header("Location")).isEqualTo("https://api.example.com/some/object/id");
            // A versioned request path keeps the version (AS_IN_REQUEST); only host:port is replaced.
            assertThat(c.send("POST /v1/some/object/name HTTP/1.1\r\nHost: api.example.com:8443\r\n"
                    + "Content-Length: 0\r\n\r\n").read().header("Location"))
                    .isEqualTo("https://api.example.com:8443/v2/some/object/id");
            assertThat(c.send("GET /f HTTP/1.1\r\nHost: api.example.com\r\n\r\n").read().header("Location"))
                    .isEqualTo("ftp://api.example.com/f");
            // A protocol outside https?|ftps? is left alone.
            assertThat(c.send("GET /x HTTP/1.1\r\nHost: api.example.com\r\n\r\n").read().header("Location"))
                    .isEqualTo("gopher://object-service/v2/x");
        }
        try (TestOrigin origin = new TestOrigin();
             RunningGateway gw = RunningGateway.to(origin, "filters: [ { name: RewriteLocationResponseHeader, args: "
                     + "{ stripVersion: ALWAYS_STRIP, locationHeaderName: Link, hostValue: example-api.com } } ]");
             RawClient c = gw.raw()) {
            origin.enqueue(created("Link", "https://object-service.prod.example.net/v1/some/object/id"));
            assertThat(c.send("POST /v1/some/object/name HTTP/1.1\r\nHost: api.example.com\r\n"
                    + "Content-Length: 0\r\n\r\n").read().header("Link"))
                    .isEqualTo("https://example-api.com/some/object/id");
        }
    }
}
