package io.loomgate.http2;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.filter.GatewayFilter;
import io.loomgate.http.Headers;
import io.loomgate.http.ResponseHead;
import io.loomgate.proxy.BoundRoutes;
import io.loomgate.proxy.ExchangeListener;
import io.loomgate.proxy.ProxyHandler;
import io.loomgate.proxy.ProxySettings;
import io.loomgate.route.PredicateContext;
import io.loomgate.route.Route;
import io.loomgate.route.RoutePredicate;
import io.loomgate.route.RouteTable;
import io.loomgate.server.ConnectionListener;
import io.loomgate.server.Listener;
import io.loomgate.server.ListenerSettings;
import io.loomgate.testkit.RawClient;
import io.loomgate.testkit.TestOrigin;
import io.loomgate.threads.ConnectionExecutors;
import io.loomgate.threads.ThreadModel;
import io.loomgate.upstream.Endpoint;
import io.loomgate.upstream.PoolListener;
import io.loomgate.upstream.PoolSettings;
import io.loomgate.upstream.UpstreamDefinition;
import io.loomgate.upstream.Upstreams;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Answers a filter changed or made (what a plugin may do through {@code FilterExchange}: a proxied response's status
 * set to one without a body, a local reply whose head carries a Content-Length of its own) reach HTTP/1.1 and h2c
 * clients with one Content-Length that matches the body they get, or none where RFC 9110 §8.6 forbids it; and the
 * connection still frames the next response right. The origin answers every request "hello from origin" (17 bytes,
 * Content-Length: 17). The gateway is built from the core's classes, as ObservedGateway is, so a filter can be Java.
 */
class FilterMadeAnswersLengthTest {
    private static final String ORIGIN_BODY = "hello from origin";

    /** {@code Path=<prefix>/**}. */
    private record PathPrefix(String prefix) implements RoutePredicate {
        @Override
        public boolean test(PredicateContext context) {
            return context.request().path().startsWith(prefix);
        }
    }

    /** Sets the proxied response's status after the origin answered, as a plugin may (SetStatus refuses 204/304). */
    private static GatewayFilter statusTo(int status) {
        return (exchange, chain) -> {
            chain.proceed(exchange);
            exchange.setResponse(exchange.response().withStatus(status));
        };
    }

    /** Answers locally with a head that says Content-Length itself. */
    private static GatewayFilter localReply(int status, String contentLength, String body) {
        return (exchange, chain) -> exchange.replyLocally(new ResponseHead("HTTP/1.1", status, "",
                new Headers().add("Content-Length", contentLength)), body.getBytes(StandardCharsets.US_ASCII));
    }

    private static final class Gateway implements AutoCloseable {
        final Upstreams upstreams;
        final Listener listener;

        Gateway(int originPort) throws Exception {
            List<Route> routes = new ArrayList<>();
            List<UpstreamDefinition> definitions = new ArrayList<>();
            Object[][] table = {
                    {"to204", "/to204", statusTo(204)},
                    {"to304", "/to304", statusTo(304)},
                    {"local204", "/local204", localReply(204, "3", "abc")},
                    {"local200", "/local200", localReply(200, "999", "abc")},
                    {"plain", "/", null},
            };
            for (int i = 0; i < table.length; i++) {
                String id = (String) table[i][0];
                List<GatewayFilter> filters = table[i][2] == null ? List.of() : List.of((GatewayFilter) table[i][2]);
                routes.add(new Route(id, i, List.of(new PathPrefix((String) table[i][1])), filters,
                        Duration.ofSeconds(5), true, 0, Duration.ZERO));
                definitions.add(new UpstreamDefinition(id, List.of(new Endpoint("127.0.0.1", originPort)),
                        PoolSettings.DEFAULTS));
            }
            upstreams = Upstreams.create(definitions, PoolListener.NOOP);
            ProxyHandler proxy = new ProxyHandler(BoundRoutes.bind(new RouteTable(routes), r -> upstreams.get(r.id())),
                    ProxySettings.DEFAULTS, ExchangeListener.NOOP);
            listener = new Listener(ListenerSettings.defaults("127.0.0.1", 0).withHttp2(Http2Settings.enabledDefaults()),
                    proxy, ConnectionExecutors.create(ThreadModel.VIRTUAL, "gw-lengths"), ConnectionListener.NOOP)
                    .start();
        }

        @Override
        public void close() {
            listener.close();
            upstreams.close();
        }
    }

    @Test
    void http11ClientsGetOneMatchingLengthOrNone() throws Exception {
        try (TestOrigin origin = new TestOrigin(); Gateway gw = new Gateway(origin.port());
             RawClient c = new RawClient(gw.listener.port())) {
            for (String path : new String[] {"/to204", "/to304", "/local204"}) {
                RawClient.Response r = c.send("GET " + path + " HTTP/1.1\r\nHost: h\r\n\r\n").read();
                assertThat(r.status()).as(path).isIn(204, 304);
                assertThat(r.headers("Content-Length")).as("Content-Length of " + path).isEmpty();
                assertThat(r.header("Transfer-Encoding")).as(path).isNull();
                // the connection still frames the next answer: nothing of the dropped body was sent
                RawClient.Response next = c.send("GET /next HTTP/1.1\r\nHost: h\r\n\r\n").read();
                assertThat(next.bodyText()).as("after " + path).isEqualTo(ORIGIN_BODY);
                assertThat(next.headers("Content-Length")).containsExactly("17");
            }
            RawClient.Response local = c.send("GET /local200 HTTP/1.1\r\nHost: h\r\n\r\n").read();
            assertThat(local.headers("Content-Length")).containsExactly("3");
            assertThat(local.bodyText()).isEqualTo("abc");
            assertThat(c.send("GET /next HTTP/1.1\r\nHost: h\r\n\r\n").read().bodyText()).isEqualTo(ORIGIN_BODY);
            RawClient.Response old = c.send("GET /old HTTP/1.0\r\nHost: h\r\nConnection: keep-alive\r\n\r\n").read();
            assertThat(old.headers("Content-Length")).containsExactly("17");
            assertThat(old.bodyText()).isEqualTo(ORIGIN_BODY);
        }
    }

    @Test
    void h2cClientsGetOneMatchingLengthOrNone() throws Exception {
        try (TestOrigin origin = new TestOrigin(); Gateway gw = new Gateway(origin.port());
             RawH2Client c = new RawH2Client(gw.listener.port())) {
            int stream = 1;
            for (String path : new String[] {"/to204", "/to304", "/local204"}) {
                int s = stream;
                c.get(s, path);
                RawH2Client.Frame head = c.await(f -> f.stream() == s && f.type() == Frames.HEADERS);
                assertThat(head.endStream()).as(path + " ends with its head").isTrue();
                assertThat(lengths(c, head)).as("content-length of " + path).isEmpty();
                stream += 2;
            }
            int s = stream;
            c.get(s, "/local200");
            assertThat(lengths(c, c.await(f -> f.stream() == s && f.type() == Frames.HEADERS))).containsExactly("3");
            assertThat(c.body(s)).isEqualTo("abc");
            int p = s + 2;
            c.get(p, "/plain");
            assertThat(lengths(c, c.await(f -> f.stream() == p && f.type() == Frames.HEADERS))).containsExactly("17");
            assertThat(c.body(p)).isEqualTo(ORIGIN_BODY);
        }
    }

    private static List<String> lengths(RawH2Client c, RawH2Client.Frame headers) throws HpackException {
        List<String> values = new ArrayList<>();
        for (String line : c.fieldLines(headers)) {
            if (line.regionMatches(true, 0, "content-length: ", 0, 16)) {
                values.add(line.substring(16));
            }
        }
        return values;
    }
}
