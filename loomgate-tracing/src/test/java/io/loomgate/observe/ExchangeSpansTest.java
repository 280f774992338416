package io.loomgate.observe;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.http.ConnectionAttributes;
import io.loomgate.http.Headers;
import io.loomgate.http.RequestHead;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.sdk.common.CompletableResultCode;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.LinkData;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import io.opentelemetry.sdk.trace.export.SpanExporter;
import io.opentelemetry.sdk.trace.samplers.Sampler;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The spans {@link ExchangeSpans} makes from the proxy's events, through the OpenTelemetry SDK (a span processor that
 * hands each ended span over at once, to an exporter that keeps them): an exchange's spans are its own, not its
 * thread's (events reported from several threads, or two exchanges' events on one thread, still give one server span
 * and its attempts under it), and the spans that share a connection are linked to its first traced one.
 */
class ExchangeSpansTest {
    private static final String TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
    private static final String TRACE_2 = "5bf92f3577b34da6a3ce929d0e0e4736";

    private final List<SpanData> exported = new CopyOnWriteArrayList<>();
    private final PresetIds ids = new PresetIds();
    private final ExchangeSpans spans = new ExchangeSpans(SdkTracerProvider.builder()
            .setIdGenerator(ids).addSpanProcessor(SimpleSpanProcessor.create(new Keeping(exported))).build(),
            Sampler.alwaysOn(), ids);

    @AfterEach
    void close() {
        spans.close();
    }

    @Test
    void aRetriedExchangeReportedFromThreeThreadsIsOneServerSpanWithItsTwoAttemptsUnderIt() throws Exception {
        TracedExchange x = TracedExchange.get("/r/1", TRACE, "00000000000000a1", null);
        on(() -> {
            spans.exchangeStart(x);
            spans.routeMatched(x);
            x.attempt("00000000000000b1", null);
            spans.attemptStart(x);
            spans.upstreamAcquired(x, false);
            x.attemptStatus = 503;
            spans.responseHeadReceived(x);
            spans.retry(x, "retried");
            spans.attemptEnd(x, null);
        });
        on(() -> { // the retry, on another thread
            x.attempt("00000000000000b2", null);
            spans.attemptStart(x);
            spans.upstreamAcquired(x, false);
            x.attemptStatus = 200;
            spans.responseHeadReceived(x);
        });
        x.status = 200;
        on(() -> spans.exchangeEnd(x)); // and the end on a third

        assertThat(exported).hasSize(3);
        SpanData server = only(SpanKind.SERVER);
        assertThat(server.getSpanId()).isEqualTo("00000000000000a1");
        assertThat(server.getTraceId()).isEqualTo(TRACE);
        assertThat(server.getAttributes().get(ExchangeSpans.LOOMGATE_RETRIES)).isEqualTo(1L);
        assertThat(server.getAttributes().get(AttributeKey.longKey("http.response.status_code"))).isEqualTo(200L);
        List<SpanData> clients = of(SpanKind.CLIENT);
        assertThat(clients).extracting(SpanData::getSpanId)
                .containsExactlyInAnyOrder("00000000000000b1", "00000000000000b2");
        assertThat(clients).allSatisfy(c -> assertThat(c.getParentSpanId()).isEqualTo(server.getSpanId()));
        assertThat(x.attributes()).as("nothing of the tracer's stays on the exchange").isEmpty();
    }

    @Test
    void twoExchangesWhoseEventsInterleaveOnOneThreadKeepTheirOwnSpans() {
        TracedExchange a = TracedExchange.get("/r/a", TRACE, "00000000000000a1", null);
        TracedExchange b = TracedExchange.get("/r/b", TRACE_2, "00000000000000a2", null);
        spans.routeMatched(a);
        spans.routeMatched(b);
        a.attempt("00000000000000b1", null);
        spans.attemptStart(a);
        b.attempt("00000000000000b2", null);
        spans.attemptStart(b);
        a.status = 200;
        spans.exchangeEnd(a);
        b.status = 200;
        spans.exchangeEnd(b);

        assertThat(of(SpanKind.SERVER)).extracting(SpanData::getSpanId)
                .containsExactlyInAnyOrder("00000000000000a1", "00000000000000a2");
        assertThat(of(SpanKind.CLIENT)).hasSize(2).allSatisfy(c -> assertThat(c.getParentSpanId())
                .isEqualTo(c.getSpanId().equals("00000000000000b1") ? "00000000000000a1" : "00000000000000a2"));
    }

    @Test
    void theStreamsOfAConnectionLinkToItsFirstTracedStream() {
        ConnectionAttributes connection = new ConnectionAttributes();
        ConnectionAttributes other = new ConnectionAttributes();
        List<TracedExchange> streams = List.of(
                TracedExchange.get("/r/1", TRACE, "00000000000000a1", connection),
                TracedExchange.get("/r/2", TRACE_2, "00000000000000a2", connection),
                TracedExchange.get("/r/3", TRACE_2, "00000000000000a3", connection),
                TracedExchange.get("/r/4", TRACE, "00000000000000a4", other));
        streams.forEach(spans::routeMatched);
        streams.forEach(spans::exchangeEnd);

        assertThat(server("00000000000000a1").getLinks()).isEmpty();
        for (String later : List.of("00000000000000a2", "00000000000000a3")) {
            List<LinkData> links = server(later).getLinks();
            assertThat(links).hasSize(1);
            assertThat(links.get(0).getSpanContext().getSpanId()).isEqualTo("00000000000000a1");
            assertThat(links.get(0).getSpanContext().getTraceId()).isEqualTo(TRACE);
            assertThat(links.get(0).getAttributes().get(ExchangeSpans.LINK_SHARES)).isEqualTo("connection");
        }
        assertThat(server("00000000000000a4").getLinks()).as("another connection's").isEmpty();
    }

    @Test
    void theAttemptsOnAnUpstreamConnectionLinkToItsFirstTracedAttempt() {
        ConnectionAttributes upstream = new ConnectionAttributes();
        TracedExchange a = TracedExchange.get("/r/a", TRACE, "00000000000000a1", null);
        TracedExchange b = TracedExchange.get("/r/b", TRACE_2, "00000000000000a2", null);
        for (TracedExchange x : List.of(a, b)) {
            spans.routeMatched(x);
            x.attempt(x == a ? "00000000000000b1" : "00000000000000b2", upstream);
            spans.attemptStart(x);
            spans.upstreamAcquired(x, x == b);
        }
        spans.exchangeEnd(a);
        spans.exchangeEnd(b);

        SpanData first = client("00000000000000b1");
        SpanData second = client("00000000000000b2");
        assertThat(first.getLinks()).isEmpty();
        assertThat(second.getLinks()).singleElement().satisfies(l -> {
            assertThat(l.getSpanContext()).isEqualTo(first.getSpanContext());
            assertThat(l.getAttributes().get(ExchangeSpans.LINK_SHARES)).isEqualTo("upstream_connection");
        });
        assertThat(second.getParentSpanId()).isEqualTo("00000000000000a2");
    }

    @Test
    void aGrpcCallsSpansAreNamedAndAttributedByTheRpcConventions() {
        Headers h = new Headers();
        h.add("Content-Type", "application/grpc+proto");
        TracedExchange x = new TracedExchange(new RequestHead("POST", "/test.Echo/Unary", "HTTP/2.0", h), TRACE,
                "00000000000000a1", null);
        spans.routeMatched(x);
        x.attempt("00000000000000b1", null);
        spans.attemptStart(x);
        x.status = 200;
        x.grpcStatus = 5;
        spans.exchangeEnd(x);

        for (SpanData s : exported) {
            assertThat(s.getName()).isEqualTo("test.Echo/Unary");
            assertThat(s.getAttributes().get(AttributeKey.stringKey("rpc.system"))).isEqualTo("grpc");
            assertThat(s.getAttributes().get(AttributeKey.stringKey("rpc.service"))).isEqualTo("test.Echo");
            assertThat(s.getAttributes().get(AttributeKey.stringKey("rpc.method"))).isEqualTo("Unary");
            assertThat(s.getAttributes().get(AttributeKey.longKey("rpc.grpc.status_code"))).isEqualTo(5L);
        }
        assertThat(exported).hasSize(2);
    }

    @Test
    void onlyAGrpcContentTypeMakesAGrpcMethod() {
        assertThat(grpcMethod("application/grpc", "/a.B/C")).isEqualTo("a.B/C");
        assertThat(grpcMethod("application/grpc+json", "/a.B/C?x")).isEqualTo("a.B/C");
        assertThat(grpcMethod("application/grpc-web", "/a.B/C")).isNull();
        assertThat(grpcMethod("application/json", "/a.B/C")).isNull();
        assertThat(grpcMethod("application/grpc", "/a.B/")).isNull();
        assertThat(grpcMethod(null, "/a.B/C")).isNull();
    }

    private static String grpcMethod(String contentType, String target) {
        Headers h = new Headers();
        if (contentType != null) {
            h.add("Content-Type", contentType);
        }
        return ExchangeSpans.grpcMethod(new RequestHead("POST", target, "HTTP/2.0", h), target);
    }

    private SpanData server(String spanId) {
        return of(SpanKind.SERVER).stream().filter(s -> s.getSpanId().equals(spanId)).findFirst().orElseThrow();
    }

    private SpanData client(String spanId) {
        return of(SpanKind.CLIENT).stream().filter(s -> s.getSpanId().equals(spanId)).findFirst().orElseThrow();
    }

    private SpanData only(SpanKind kind) {
        List<SpanData> all = of(kind);
        assertThat(all).hasSize(1);
        return all.get(0);
    }

    private List<SpanData> of(SpanKind kind) {
        return exported.stream().filter(s -> s.getKind() == kind).toList();
    }

    /** Runs {@code events} on a new virtual thread and waits for it (a thread the exchange is handed to). */
    private static void on(Runnable events) throws Exception {
        Throwable[] failed = new Throwable[1];
        Thread t = Thread.ofVirtual().start(() -> {
            try {
                events.run();
            } catch (Throwable e) {
                failed[0] = e;
            }
        });
        t.join();
        if (failed[0] != null) {
            throw new AssertionError("events failed", failed[0]);
        }
    }

    /** Keeps what it is given. */
    private record Keeping(List<SpanData> spans) implements SpanExporter {
        @Override
        public CompletableResultCode export(Collection<SpanData> batch) {
            spans.addAll(batch);
            return CompletableResultCode.ofSuccess();
        }

        @Override
        public CompletableResultCode flush() {
            return CompletableResultCode.ofSuccess();
        }

        @Override
        public CompletableResultCode shutdown() {
            return CompletableResultCode.ofSuccess();
        }
    }
}
