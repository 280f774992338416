package io.loomgate.config;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.filter.FilterChains;
import io.loomgate.http.Headers;
import io.loomgate.http.RequestHead;
import io.loomgate.resilience.RetryPolicy;
import io.loomgate.route.Route;
import io.loomgate.route.RouteMatch;
import io.loomgate.route.RouteTable;
import io.loomgate.testkit.RunningGateway;
import io.loomgate.testkit.TestExchange;
import io.loomgate.testkit.TestOrigin;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The YAML examples of Spring Cloud Gateway's reference documentation (copied verbatim into test resources
 * scg-docs/, each naming its source file, commit and section), loaded as pasted: each runs with the documented
 * effect, or is refused with the reason docs/scg-compatibility.md gives.
 */
class ScgDocumentedExamplesTest {

    private static String example(String name) throws IOException {
        try (InputStream in = ScgDocumentedExamplesTest.class.getResourceAsStream("/scg-docs/" + name + ".yml")) {
            assertThat(in).as(name).isNotNull();
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    private static RouteTable routes(String name) throws Exception {
        return GatewayAssembly.build(ConfigLoader.parse(example(name), name + ".yml", Map.of())).routes();
    }

    private static String refusal(String name) throws IOException {
        try {
            GatewayAssembly.build(ConfigLoader.parse(example(name), name + ".yml", Map.of()));
        } catch (ConfigException e) {
            return e.getMessage();
        }
        throw new AssertionError(name + " was accepted");
    }

    private static RequestHead request(String method, String target, String... headerPairs) {
        Headers headers = new Headers();
        headers.add("Host", "example.com");
        for (int i = 0; i < headerPairs.length; i += 2) {
            headers.add(headerPairs[i], headerPairs[i + 1]);
        }
        return new RequestHead(method, target, "HTTP/1.1", headers);
    }

    private static String matched(RouteTable table, RequestHead request) {
        return matched(table, request, null);
    }

    private static String matched(RouteTable table, RequestHead request, InetAddress client) {
        RouteMatch m = table.match(request, client);
        return m == null ? null : m.route().id();
    }

    @Test
    void afterBeforeAndBetweenMatchByTheClock() throws Exception {
        // "This route matches any request made after Jan 20, 2017 17:42 Mountain Time (Denver)."
        assertThat(matched(routes("after-route-predicate-factory"), request("GET", "/"))).isEqualTo("after_route");
        // Before that time, and the day after it: both in the past now.
        assertThat(matched(routes("before-route-predicate-factory"), request("GET", "/"))).isNull();
        assertThat(matched(routes("between-route-predicate-factory"), request("GET", "/"))).isNull();
    }

    @Test
    void cookieHeaderHostMethodPathQueryMatchAsDocumented() throws Exception {
        RouteTable cookie = routes("cookie-route-predicate-factory");
        assertThat(matched(cookie, request("GET", "/", "Cookie", "chocolate=chip"))).isEqualTo("cookie_route");
        assertThat(matched(cookie, request("GET", "/", "Cookie", "chocolate=mint"))).isNull();
        RouteTable header = routes("header-route-predicate-factory");
        assertThat(matched(header, request("GET", "/", "X-Request-Id", "123"))).isEqualTo("header_route");
        assertThat(matched(header, request("GET", "/", "X-Request-Id", "abc"))).isNull();
        RouteTable host = routes("host-route-predicate-factory");
        Headers h = new Headers().add("Host", "www.somehost.org");
        assertThat(matched(host, new RequestHead("GET", "/", "HTTP/1.1", h))).isEqualTo("host_route");
        Headers other = new Headers().add("Host", "www.elsewhere.org");
        assertThat(matched(host, new RequestHead("GET", "/", "HTTP/1.1", other))).isNull();
        RouteTable method = routes("method-route-predicate-factory");
        assertThat(matched(method, request("POST", "/"))).isEqualTo("method_route");
        assertThat(matched(method, request("DELETE", "/"))).isNull();
        for (String name : new String[] {"path-route-predicate-factory",
                "path-route-predicate-factory-expanded-arguments"}) {
            RouteTable path = routes(name);
            assertThat(matched(path, request("GET", "/red/1"))).as(name).isEqualTo("path_route");
            assertThat(matched(path, request("GET", "/blue/green"))).as(name).isEqualTo("path_route");
            assertThat(matched(path, request("GET", "/green/1"))).as(name).isNull();
        }
        assertThat(matched(routes("query-route-predicate-factory"), request("GET", "/?green=1")))
                .isEqualTo("query_route");
        RouteTable query2 = routes("query-route-predicate-factory-2");
        assertThat(matched(query2, request("GET", "/?red=greet"))).isEqualTo("query_route");
        assertThat(matched(query2, request("GET", "/?red=blue"))).isNull();
    }

    @Test
    void addressPredicatesMatchAsDocumented() throws Exception {
        RouteTable remote = routes("remoteaddr-route-predicate-factory");
        assertThat(matched(remote, request("GET", "/"), InetAddress.getByName("192.168.1.10")))
                .isEqualTo("remoteaddr_route");
        assertThat(matched(remote, request("GET", "/"), InetAddress.getByName("10.0.0.1"))).isNull();
        // "This route matches if the X-Forwarded-For header contains, for example, 192.168.1.10." The gateway has
        // appended its peer (127.0.0.1) before routing, as it does for a trusted proxy in front.
        RouteTable forwarded = routes("xforwarded-remote-addr-route-predicate-factory");
        assertThat(matched(forwarded, request("GET", "/", "X-Forwarded-For", "192.168.1.10, 127.0.0.1"),
                InetAddress.getByName("127.0.0.1"))).isEqualTo("xforwarded_remoteaddr_route");
        assertThat(matched(forwarded, request("GET", "/", "X-Forwarded-For", "10.0.0.1, 127.0.0.1"),
                InetAddress.getByName("127.0.0.1"))).isNull();
    }

    @Test
    void weightSendsAboutEightInTenToTheHighRoute() throws Exception {
        RouteTable weight = routes("weight-route-predicate-factory");
        int high = 0;
        for (int i = 0; i < 2000; i++) {
            if ("weight_high".equals(matched(weight, request("GET", "/")))) {
                high++;
            }
        }
        assertThat(high).isBetween(1400, 1800); // 80% of 2000 is 1600; generous bounds for a random draw
    }

    @Test
    void defaultFiltersLoad() throws Exception {
        GatewayConfig config = ConfigLoader.parse(example("default-filters"), "default-filters.yml", Map.of());
        assertThat(config.routes()).isEmpty(); // the example has default filters and no route
    }

    @Test
    void theScgHeaderFiltersLoadAsDocumented() throws Exception {
        // Their effect is tested on exchanges in filter.ScgHeaderFiltersTest; here each documented example builds.
        for (String name : new String[] {"setrequesthostheader-gatewayfilter-factory",
                "maprequestheader-gatewayfilter-factory", "addrequestheadersifnotpresent-gatewayfilter-factory",
                "addrequestheadersifnotpresent-gatewayfilter-factory-2", "deduperesponseheader-gatewayfilter-factory",
                "addrequestparameter-gatewayfilter-factory", "removerequestparameter-gatewayfilter-factory"}) {
            assertThat(routes(name).routes()).as(name).hasSize(1);
        }
    }

    @Test
    void preserveHostHeaderMarksItsRoute() throws Exception {
        // Its effect (the client's Host reaches the origin even on a preserve-host: false route) is tested through
        // the gateway in it.ScgRequestFiltersTest.
        assertThat(routes("preservehostheader-gatewayfilter-factory").routes()).singleElement()
                .satisfies(r -> assertThat(r.preserveHost()).isTrue());
    }

    @Test
    void requestHeaderSizeExampleLoads() throws Exception {
        // "This will send a status 431 if size of any request header is greater than 1000 Bytes": tested through
        // the gateway in it.ScgRequestFiltersTest.
        assertThat(routes("requestheadersize-gatewayfilter-factory").routes()).singleElement()
                .satisfies(r -> assertThat(r.filters()).hasSize(1));
    }

    @Test
    void rewriteRequestParameterRewritesTheCampaignAsDocumented() throws Exception {
        // "For a request to /products?campaign=old, this sets the request parameter to campaign=fall2023."
        Route route = routes("rewriterequestparameter-gatewayfilter-factory").routes().getFirst();
        TestExchange exchange = TestExchange.get("/products?campaign=old");
        FilterChains.run(route.filters(), exchange, TestExchange.origin());
        assertThat(exchange.request().target()).isEqualTo("/products?campaign=fall2023");
    }

    @Test
    void rewriteLocationResponseHeaderRewritesAsDocumented() throws Exception {
        // "for a request of POST https://api.example.com/some/object/name, the Location response header value of
        // https://object-service.prod.example.net/v2/some/object/id is rewritten as
        // https://api.example.com/some/object/id."
        Route route = routes("rewritelocationresponseheader-gatewayfilter-factory").routes().getFirst();
        TestExchange exchange = TestExchange.get("/some/object/name");
        exchange.request().headers().set("Host", "api.example.com");
        FilterChains.run(route.filters(), exchange, x -> {
            TestExchange.origin().proceed(x);
            x.response().headers().set("Location", "https://object-service.prod.example.net/v2/some/object/id");
        });
        assertThat(exchange.response().headers().first("Location")).isEqualTo("https://api.example.com/some/object/id");
    }

    @Test
    void addResponseHeaderWithOverrideFalseLeavesAFieldTheOriginSentAsDocumented() throws Exception {
        // "This adds X-Response-Red:Blue header to the downstream response's headers ... and if the response already
        // contains the X-Response-Black header, this will not add the X-Response-Black: White header".
        Route route = routes("addresponseheader-gatewayfilter-factory").routes().getFirst();
        TestExchange plain = TestExchange.get("/");
        FilterChains.run(route.filters(), plain, TestExchange.origin());
        assertThat(plain.response().headers().all("X-Response-Red")).containsExactly("Blue");
        assertThat(plain.response().headers().all("X-Response-Black")).containsExactly("White");

        TestExchange black = TestExchange.get("/");
        FilterChains.run(route.filters(), black, x -> {
            TestExchange.origin().proceed(x);
            x.response().headers().add("X-Response-Black", "Origin");
            x.response().headers().add("X-Response-Red", "Origin");
        });
        assertThat(black.response().headers().all("X-Response-Black")).containsExactly("Origin");
        assertThat(black.response().headers().all("X-Response-Red")).containsExactly("Origin", "Blue");
    }

    @Test
    void theOtherFilterPagesExamplesLoadAsDocumented() throws Exception {
        // Their effects are tested through the gateway in the cli module's integration tests.
        for (String name : new String[] {"addrequestheader-gatewayfilter-factory",
                "addrequestheader-gatewayfilter-factory-2", "prefixpath-gatewayfilter-factory",
                "redirectto-gatewayfilter-factory", "redirectto-gatewayfilter-factory-2",
                "removerequestheader-gatewayfilter-factory", "removeresponseheader-gatewayfilter-factory",
                "requestsize-gatewayfilter-factory", "rewritepath-gatewayfilter-factory",
                "setpath-gatewayfilter-factory", "setrequestheader-gatewayfilter-factory",
                "setresponseheader-gatewayfilter-factory", "stripprefix-gatewayfilter-factory",
                "circuitbreaker-gatewayfilter-factory", "localresponsecache-gatewayfilter-factory"}) {
            assertThat(routes(name).routes()).as(name).hasSize(1);
        }
        assertThat(routes("setstatus-gatewayfilter-factory").routes()).hasSize(2);
    }

    @Test
    void theOtherFilterPagesExamplesAreRefusedWithTheDocumentedReason() throws Exception {
        Map<String, String> refused = Map.ofEntries(
                Map.entry("jsontogrpc-gatewayfilter-factory", "filter 'JsonToGrpc' is not supported"),
                Map.entry("removejsonattributesresponsebody-gatewayfilter-factory",
                        "filter 'RemoveJsonAttributesResponseBody' is not supported: it rewrites JSON bodies"),
                Map.entry("removejsonattributesresponsebody-gatewayfilter-factory-2",
                        "filter 'RemoveJsonAttributesResponseBody' is not supported: it rewrites JSON bodies"),
                Map.entry("requestheadertorequesturi-gatewayfilter-factory",
                        "filter 'RequestHeaderToRequestUri' is not supported: it lets a header choose the origin"),
                // "uri: no://op" (SetRequestUri's page) is refused before the filter is.
                Map.entry("seturi-gatewayfilter-factory", "uri: expected http://host:port"),
                // These pages name their origin by lb://, a service this file does not declare under upstreams:
                // (or with a port, which a named upstream has not); each message names the upstreams: section.
                Map.entry("fallbackheaders-gatewayfilter-factory", "upstreams:"),
                Map.entry("circuitbreaker-gatewayfilter-factory-2", "upstreams:"),
                Map.entry("circuitbreaker-gatewayfilter-factory-3", "upstreams:"),
                Map.entry("circuitbreaker-gatewayfilter-factory-4", "upstreams:"),
                Map.entry("circuitbreaker-gatewayfilter-factory-5", "upstreams:"),
                Map.entry("circuitbreaker-gatewayfilter-factory-6", "uri: expected lb://NAME, a service of the "
                        + "upstreams: section (no port, path or query), got 'lb://backing-service:8088'"),
                // "- Host: {segment}.myhost.org" on these pages is not YAML (Host={segment}.myhost.org is meant).
                Map.entry("setrequestheader-gatewayfilter-factory-2", "yml:12: YAML syntax error"),
                Map.entry("setresponseheader-gatewayfilter-factory-2", "yml:12: YAML syntax error"),
                Map.entry("addresponseheader-gatewayfilter-factory-2", "yml:12: YAML syntax error"),
                Map.entry("setstatus-gatewayfilter-factory-2", "yml:7: spring.cloud.gateway.set-status."
                        + "original-status-header-name: not supported: SetStatus's original-status header"),
                Map.entry("secureheaders-gatewayfilter-factory", "yml:8: spring.cloud.gateway.filter.secure-headers."
                        + "disable: not supported: every built-in filter is always available"),
                Map.entry("secureheaders-gatewayfilter-factory-3", "yml:8: spring.cloud.gateway.filter."
                        + "secure-headers.enable: not supported: every built-in filter is always available"));
        refused.forEach((name, reason) -> {
            try {
                assertThat(refusal(name)).as(name).startsWith(name + ".yml:").contains(reason);
            } catch (IOException e) {
                throw new AssertionError(name, e);
            }
        });
    }

    @Test
    void rewriteResponseHeadersExampleHasAStrayCommaAndIsRefused() throws IOException {
        // SCG's page writes "RewriteResponseHeader=X-Response-Red, , password=[^&]+, password=***": four values for
        // three arguments (SCG would bind regexp "" and replacement "password=[^&]+", not what the page describes).
        assertThat(refusal("rewriteresponseheader-gatewayfilter-factory")).contains("filter 'RewriteResponseHeader'")
                .contains("takes at most 3 argument(s) (name, regexp, replacement), got 4");
    }

    @Test
    void aDocumentedExampleThatIsNotYamlIsRefusedOnItsLine() throws IOException {
        // SCG's own page writes "- Host: {segment}.myhost.org" where Host={segment}.myhost.org is meant: not YAML.
        assertThat(refusal("addrequestparameter-gatewayfilter-factory-2"))
                .startsWith("addrequestparameter-gatewayfilter-factory-2.yml:12: YAML syntax error");
    }

    @Test
    void filtersThatNeedSpringAreRefusedWithTheLoomgateWay() throws Exception {
        assertThat(refusal("tokenrelay-gatewayfilter-factory")).isEqualTo("tokenrelay-gatewayfilter-factory.yml:14: "
                + "route 'resource': Spring Cloud Gateway's filter 'TokenRelay' is not supported: it needs Spring "
                + "Security's OAuth2 client and a session; check tokens at the gateway with JwtAuth and let the client "
                + "send its own");
        assertThat(refusal("tokenrelay-gatewayfilter-factory-2")).contains("filter 'TokenRelay' is not supported");
        assertThat(refusal("savesession-gatewayfilter-factory")).contains("Spring Cloud Gateway's filter "
                + "'SaveSession' is not supported: it needs Spring Session");
        assertThat(refusal("addrequestparameter-gatewayfilter-factory-2")).contains("YAML syntax error");
    }

    /**
     * CacheRequestBody's example ("cache the request body before sending it downstream"): refused as pasted only for
     * its uri (lb://downstream, a service the file does not declare); with the service's instance listed as SCG's
     * static discovery client reads it ({@code spring.cloud.discovery.client.simple.instances}) it runs as pasted, and
     * a body the client streams without a length reaches the origin whole, with its Content-Length.
     */
    @Test
    void cacheRequestBodyRunsAsDocumented() throws Exception {
        assertThat(refusal("cacherequestbody-gatewayfilter-factory")).isEqualTo("cacherequestbody-gatewayfilter-"
                + "factory.yml:10: route 'cache_request_body_route': uri: no upstream 'downstream' under upstreams: "
                + "(the file declares none; list the service's uris under upstreams.downstream)");
        try (TestOrigin origin = new TestOrigin();
             RunningGateway gw = RunningGateway.start("server:\n  port: 0\nadmin:\n  port: 0\n"
                     + example("cacherequestbody-gatewayfilter-factory").replace("  cloud:\n", "  cloud:\n"
                             + "    discovery.client.simple.instances:\n      downstream:\n        - uri: ${ORIGIN}\n"),
                     Map.of("ORIGIN", origin.uri()))) {
            origin.enqueue(TestOrigin.Reply.ok("cached"));
            byte[] body = "a body sent without a length".getBytes(StandardCharsets.UTF_8);
            HttpResponse<String> r = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build().send(
                    HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + gw.port() + "/downstream/x"))
                            .timeout(Duration.ofSeconds(20))
                            .POST(HttpRequest.BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(body)))
                            .build(), HttpResponse.BodyHandlers.ofString());
            assertThat(r.statusCode()).isEqualTo(200);
            TestOrigin.Recorded got = origin.takeRequest();
            assertThat(got.target()).isEqualTo("/downstream/x");
            assertThat(got.body()).isEqualTo(body);
            assertThat(got.header("Content-Length")).isEqualTo(Integer.toString(body.length));
            assertThat(got.header("Transfer-Encoding")).isNull();
        }
        // A bodyClass that needs Java code to build is refused on its line.
        String pojo = example("cacherequestbody-gatewayfilter-factory").replace("lb://downstream",
                "http://localhost:8080").replace("java.lang.String", "com.example.Order");
        try {
            GatewayAssembly.build(ConfigLoader.parse(pojo, "cache.yml", Map.of()));
            throw new AssertionError("a POJO bodyClass was accepted");
        } catch (ConfigException e) {
            assertThat(e.getMessage()).startsWith("cache.yml:16: route 'cache_request_body_route': filter "
                    + "'CacheRequestBody': bodyClass: 'com.example.Order' needs Java code to convert the body into it");
        }
    }

    @Test
    void retryWithJitterAndTimeoutRunsAsDocumented() throws Exception {
        RetryPolicy p = routes("retry-gatewayfilter-factory").routes().get(0).policies().retry().policy();
        assertThat(p.retries()).isEqualTo(3);
        assertThat(p.statuses()).containsExactly(502);
        assertThat(p.methods()).containsExactlyInAnyOrder("GET", "POST");
        assertThat(p.backoff()).isEqualTo(new RetryPolicy.Backoff(Duration.ofMillis(10), Duration.ofMillis(50), 2,
                false));
        assertThat(p.jitter()).isEqualTo(0.5);
        assertThat(p.timeout()).isEqualTo(Duration.ofMillis(100));
        // "Generating a backoff between [backoff - backoff*randomFactor, backoff + backoff*randomFactor]", within
        // firstBackoff..maxBackoff: the second retry's 20 ms lands in 10..30 ms.
        for (int i = 0; i < 200; i++) {
            assertThat(p.waitBefore(2)).isBetween(Duration.ofMillis(10), Duration.ofMillis(30));
            assertThat(p.waitBefore(1)).isBetween(Duration.ofMillis(10), Duration.ofMillis(15));
        }
        RouteTable both = routes("retry-gatewayfilter-factory-2");
        for (Route r : both.routes()) { // the expanded form and the nine-value shortcut say the same
            RetryPolicy q = r.policies().retry().policy();
            assertThat(q.statuses()).as(r.id()).containsExactly(500);
            assertThat(q.jitter()).as(r.id()).isEqualTo(0.5);
            assertThat(q.timeout()).as(r.id()).isEqualTo(Duration.ofMillis(100));
            assertThat(q.backoff().basedOnPreviousValue()).as(r.id()).isFalse();
        }
    }

    @Test
    void circuitBreakerAndFallbackHeadersExamplesBuildAsDocumented() throws Exception {
        Route cb = routes("spring-cloud-circuitbreaker-filter-factory").routes().get(0);
        assertThat(cb.policies().breaker().toString()).isEqualTo("CircuitBreaker[myCircuitBreaker, CLOSED, "
                + "statusCodes=[]]");
        // The other examples name their upstream by lb://, which needs a named upstream; written as an address,
        // each builds with the documented arguments.
        assertThat(refusal("spring-cloud-circuitbreaker-filter-factory-2")).contains("lb://");
        assertThat(breaker(withAddress("spring-cloud-circuitbreaker-filter-factory-2")))
                .contains("fallback=/inCaseOfFailureUseThis");
        assertThat(breaker(withAddress("spring-cloud-circuitbreaker-filter-factory-3")))
                .contains("fallback=/inCaseOfFailureUseThis/{segments}");
        // "the call consumingServiceEndpoint/users/1 will be redirected to inCaseOfFailureUseThis/users/1": the
        // route binds Spring's {*segments} as the rest of the path, which the fallback path takes
        RouteMatch rest = GatewayAssembly.build(ConfigLoader.parse(withAddress(
                "spring-cloud-circuitbreaker-filter-factory-3"), "example.yml", Map.of())).routes()
                .match(request("GET", "/consumingServiceEndpoint/users/1"), null);
        assertThat(rest.variables()).containsEntry("segments", "/users/1");
        assertThat(breaker(withAddress("spring-cloud-circuitbreaker-filter-factory-5")))
                .contains("statusCodes=[404, 500]", "fallback=/inCaseOfFailureUseThis");
        assertThat(breaker(withAddress("spring-cloud-circuitbreaker-filter-factory-6"))).contains("resumeWithoutError");
        RouteTable headers = GatewayAssembly.build(ConfigLoader.parse(withAddress("fallback-headers"),
                "fallback-headers.yml", Map.of())).routes();
        assertThat(headers.routes().get(1).filters().get(0).toString()).isEqualTo("FallbackHeaders[Test-Header, "
                + "Execution-Exception-Message, Root-Cause-Exception-Type, Root-Cause-Exception-Message]");
    }

    /** The example with each {@code lb://name} written as the address {@code http://name}. */
    private static String withAddress(String name) throws IOException {
        return example(name).replace("lb://", "http://");
    }

    private static String breaker(String yaml) throws Exception {
        return GatewayAssembly.build(ConfigLoader.parse(yaml, "example.yml", Map.of())).routes().routes().get(0)
                .policies().breaker().toString();
    }

    @Test
    void whatHasNoEquivalentIsRefusedWithTheDocumentedReason() throws Exception {
        assertThat(refusal("version-route-predicate-factory-usage")).contains("Spring Cloud Gateway's predicate 'Version' is "
                + "not supported: it needs Spring's API versioning (spring.webflux.apiversion)");
        assertThat(refusal("version-route-predicate-factory-version-strategy"))
                .isEqualTo("version-route-predicate-factory-version-strategy.yml:7: "
                        + "spring.webflux.apiversion.use.header: not supported: a Spring setting; Loomgate is not a "
                        + "Spring application");
    }
}
