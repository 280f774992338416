package io.loomgate.observe;

import io.loomgate.http.ConnectionAttributes;
import io.loomgate.http.RequestHead;
import io.loomgate.proxy.ExchangeListener;
import io.loomgate.proxy.ExchangeView;
import io.loomgate.proxy.ProxyFailure;
import io.loomgate.ratelimit.RateLimitListener;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.TraceFlags;
import io.opentelemetry.api.trace.TraceState;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.samplers.Sampler;
import io.opentelemetry.sdk.trace.samplers.SamplingDecision;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * The spans of each exchange, made from the proxy's events: a server span for the exchange (its id the one the
 * exchange's TraceContext drew, its parent the client's traceparent) and a client span for each upstream attempt (its
 * id the one that attempt sent upstream), so a retry shows as a sibling attempt under the server span. Named and
 * attributed by the OpenTelemetry HTTP semantic conventions (and the RPC ones for gRPC), plus the gateway's own
 * {@code loomgate.*} attributes: route, upstream, endpoint, retries, rate-limit decision.
 *
 * <p>An exchange the sampler left out costs nothing here: no span is made (the traceparent sent upstream says not
 * sampled). The exchange's spans are kept among its own attributes ({@link ExchangeView#setAttribute}) from the first
 * span to its end, so they follow the exchange whichever thread reports an event, and go with it.
 *
 * <p>Links tie together what shares a connection, which a trace's tree cannot show: the server span of each exchange
 * after the first traced one on a client connection (later HTTP/2 streams, keep-alive requests) links to that first
 * one's server span, and the client span of each attempt after the first traced one on an upstream connection (an
 * HTTP/2 connection's other streams, a reused HTTP/1.1 connection) links to that first attempt's client span. The
 * first span is kept in the connection's {@link ConnectionAttributes}, which go with the connection.
 */
final class ExchangeSpans implements TracingSupport.Tracer, ExchangeListener.Ending {
    private static final AttributeKey<String> METHOD = AttributeKey.stringKey("http.request.method");
    private static final AttributeKey<String> ROUTE = AttributeKey.stringKey("http.route");
    private static final AttributeKey<String> URL_PATH = AttributeKey.stringKey("url.path");
    private static final AttributeKey<Long> STATUS = AttributeKey.longKey("http.response.status_code");
    private static final AttributeKey<String> SERVER_ADDRESS = AttributeKey.stringKey("server.address");
    private static final AttributeKey<Long> SERVER_PORT = AttributeKey.longKey("server.port");
    private static final AttributeKey<String> CLIENT_ADDRESS = AttributeKey.stringKey("client.address");
    private static final AttributeKey<String> PROTOCOL_VERSION = AttributeKey.stringKey("network.protocol.version");
    private static final AttributeKey<String> USER_AGENT = AttributeKey.stringKey("user_agent.original");
    private static final AttributeKey<String> ERROR_TYPE = AttributeKey.stringKey("error.type");
    private static final AttributeKey<Long> RESEND_COUNT = AttributeKey.longKey("http.request.resend_count");
    private static final AttributeKey<String> RPC_SYSTEM = AttributeKey.stringKey("rpc.system");
    private static final AttributeKey<String> RPC_SERVICE = AttributeKey.stringKey("rpc.service");
    private static final AttributeKey<String> RPC_METHOD = AttributeKey.stringKey("rpc.method");
    private static final AttributeKey<Long> RPC_GRPC_STATUS = AttributeKey.longKey("rpc.grpc.status_code");
    static final AttributeKey<String> LOOMGATE_ROUTE = AttributeKey.stringKey("loomgate.route");
    static final AttributeKey<String> LOOMGATE_UPSTREAM = AttributeKey.stringKey("loomgate.upstream");
    static final AttributeKey<String> LOOMGATE_ENDPOINT = AttributeKey.stringKey("loomgate.endpoint");
    static final AttributeKey<Long> LOOMGATE_RETRIES = AttributeKey.longKey("loomgate.retries");
    static final AttributeKey<String> LOOMGATE_RATE_LIMIT = AttributeKey.stringKey("loomgate.ratelimit.decision");
    static final AttributeKey<Boolean> LOOMGATE_REUSED = AttributeKey.booleanKey("loomgate.connection.reused");
    private static final AttributeKey<String> RETRY_OUTCOME = AttributeKey.stringKey("loomgate.retry.outcome");
    /** On a link: what the linked span shares with this one, {@code connection} or {@code upstream_connection}. */
    static final AttributeKey<String> LINK_SHARES = AttributeKey.stringKey("loomgate.link.shares");
    private static final Attributes SHARES_CONNECTION = Attributes.of(LINK_SHARES, "connection");
    private static final Attributes SHARES_UPSTREAM_CONNECTION = Attributes.of(LINK_SHARES, "upstream_connection");
    /** The exchange's {@link Spans} among its attributes; a connection's first traced span among the connection's. */
    private static final String KEY = ExchangeSpans.class.getName();

    private final SdkTracerProvider provider;
    private final Tracer tracer;
    private final Sampler sampler;
    private final PresetIds ids;

    /**
     * One exchange's spans: the server span, the attempt's client span while one runs, the retries so far. Its
     * events come one at a time (handing an exchange to another thread happens-before that thread's next event).
     */
    private static final class Spans {
        final Span server;
        /** The gRPC method, {@code package.Service/Method}, for a gRPC call; null for any other exchange. */
        final String rpc;
        Span client;
        int retries;

        Spans(Span server, String rpc) {
            this.server = server;
            this.rpc = rpc;
        }
    }

    ExchangeSpans(SdkTracerProvider provider, Sampler sampler, PresetIds ids) {
        this.provider = provider;
        this.tracer = provider.get("io.loomgate");
        this.sampler = sampler;
        this.ids = ids;
    }

    // ---- the proxy's events ----

    @Override
    public boolean sampleNewTrace(String traceId) {
        return sampler.shouldSample(Context.root(), traceId, "", SpanKind.SERVER, Attributes.empty(), List.of())
                .getDecision() == SamplingDecision.RECORD_AND_SAMPLE;
    }

    @Override
    public void routeMatched(ExchangeView x) {
        spans(x);
    }

    @Override
    public void attemptStart(ExchangeView x) {
        Spans s = spans(x);
        if (s == null || x.attemptSpanId() == null) {
            return;
        }
        endClient(s, null);
        Context parent = Context.root().with(s.server);
        s.client = ids.startingWith(null, x.attemptSpanId(), () -> tracer
                .spanBuilder(s.rpc != null ? s.rpc : x.method())
                .setSpanKind(SpanKind.CLIENT)
                .setParent(parent)
                .startSpan());
        s.client.setAttribute(METHOD, x.method());
        if (s.rpc != null) {
            rpcNames(s.client, s.rpc);
        }
        String endpoint = x.endpoint();
        if (endpoint != null) {
            s.client.setAttribute(LOOMGATE_ENDPOINT, endpoint);
            int colon = endpoint.lastIndexOf(':');
            if (colon > 0) {
                s.client.setAttribute(SERVER_ADDRESS, unbracket(endpoint.substring(0, colon)));
                s.client.setAttribute(SERVER_PORT, parsePort(endpoint.substring(colon + 1)));
            } else {
                s.client.setAttribute(SERVER_ADDRESS, endpoint);
            }
        }
        if (x.upstreamId() != null) {
            s.client.setAttribute(LOOMGATE_UPSTREAM, x.upstreamId());
        }
        if (x.attemptNumber() > 0) {
            s.client.setAttribute(RESEND_COUNT, x.attemptNumber());
        }
    }

    @Override
    public void upstreamAcquired(ExchangeView x, boolean reused) {
        Spans s = current(x);
        if (s != null && s.client != null) {
            s.client.setAttribute(LOOMGATE_REUSED, reused);
            linkToFirst(s.client, x.upstreamConnectionAttributes(), SHARES_UPSTREAM_CONNECTION);
        }
    }

    @Override
    public void responseHeadReceived(ExchangeView x) {
        Spans s = current(x);
        if (s != null && s.client != null && x.attemptStatus() != 0) {
            s.client.setAttribute(STATUS, x.attemptStatus());
            if (x.attemptStatus() >= 400) { // a client span's error is any 4xx or 5xx (HTTP semantic conventions)
                s.client.setAttribute(ERROR_TYPE, Integer.toString(x.attemptStatus()));
                s.client.setStatus(StatusCode.ERROR);
            }
        }
    }

    @Override
    public void attemptEnd(ExchangeView x, ProxyFailure failure) {
        Spans s = current(x);
        if (s != null) {
            endClient(s, failure);
        }
    }

    @Override
    public void retry(ExchangeView x, String outcome) {
        Spans s = current(x);
        if (s == null) {
            return;
        }
        if (outcome.equals("retried")) {
            s.retries++;
        }
        s.server.addEvent("retry", Attributes.of(RETRY_OUTCOME, outcome));
    }

    @Override
    public void exchangeDone(ExchangeView x) {
        end(x);
    }

    // ---- spans ----

    /**
     * This exchange's spans, the server span started on first need (backdated to the exchange's start); null when
     * the exchange is not sampled or has no trace ids (a request the request screen answered).
     */
    private Spans spans(ExchangeView x) {
        Spans s = current(x);
        if (s != null || !x.traceSampled() || x.spanId() == null) {
            return s;
        }
        Context parent = x.parentSpanId() == null ? Context.root()
                : Context.root().with(Span.wrap(SpanContext.createFromRemoteParent(x.traceId(), x.parentSpanId(),
                        TraceFlags.getSampled(), TraceState.getDefault())));
        long startEpochNanos = System.currentTimeMillis() * 1_000_000L - (System.nanoTime() - x.startNanos());
        RequestHead request = x.request();
        String route = x.routeId();
        Span server = ids.startingWith(x.traceId(), x.spanId(), () -> tracer
                .spanBuilder(route == null ? x.method() : x.method() + " " + route)
                .setSpanKind(SpanKind.SERVER)
                .setParent(parent)
                .setStartTimestamp(startEpochNanos, TimeUnit.NANOSECONDS)
                .startSpan());
        server.setAttribute(METHOD, x.method());
        server.setAttribute(URL_PATH, path(x.target()));
        server.setAttribute(CLIENT_ADDRESS, x.clientAddress());
        if (request != null) {
            server.setAttribute(PROTOCOL_VERSION, protocolVersion(request.version()));
            String host = request.headers().first("Host");
            if (host != null) {
                setHost(server, host);
            }
            String agent = request.headers().first("User-Agent");
            if (agent != null) {
                server.setAttribute(USER_AGENT, agent);
            }
        }
        s = new Spans(server, request == null ? null : grpcMethod(request, x.target()));
        x.setAttribute(KEY, s);
        linkToFirst(server, x.connectionAttributes(), SHARES_CONNECTION);
        return s;
    }

    /** The exchange's spans, or null before the first (or for an exchange not sampled). */
    private static Spans current(ExchangeView x) {
        return x.attribute(KEY) instanceof Spans s ? s : null;
    }

    /**
     * Links {@code span} to the first traced span of its connection, or makes it that first span: the one the
     * connection's later exchanges (or attempts) link to. Concurrent streams race for it; one wins, the others link.
     */
    private static void linkToFirst(Span span, ConnectionAttributes connection, Attributes shares) {
        if (connection == null) {
            return;
        }
        SpanContext self = span.getSpanContext();
        if (connection.putIfAbsent(KEY, self) instanceof SpanContext first && !first.equals(self)) {
            span.addLink(first, shares);
        }
    }

    /** The end of the exchange: the relayed attempt's client span, then the server span with the outcome. */
    private void end(ExchangeView x) {
        Spans s = spans(x);
        if (s == null) {
            return;
        }
        x.setAttribute(KEY, null);
        ProxyFailure failure = x.failure();
        if (s.client != null && s.rpc != null && x.grpcStatus() >= 0) {
            s.client.setAttribute(RPC_GRPC_STATUS, x.grpcStatus());
        }
        endClient(s, failure != null && failure.source() == ProxyFailure.Source.UPSTREAM ? failure : null);
        Span server = s.server;
        String route = x.routeId();
        if (s.rpc != null) {
            server.updateName(s.rpc);
        } else if (route != null) {
            server.updateName(x.method() + " " + route);
        }
        if (route != null) {
            server.setAttribute(ROUTE, route);
            server.setAttribute(LOOMGATE_ROUTE, route);
        }
        if (x.upstreamId() != null) {
            server.setAttribute(LOOMGATE_UPSTREAM, x.upstreamId());
        }
        if (x.endpoint() != null) {
            server.setAttribute(LOOMGATE_ENDPOINT, x.endpoint());
        }
        server.setAttribute(LOOMGATE_RETRIES, s.retries);
        if (x.attribute(RateLimitListener.DECISION_ATTRIBUTE) instanceof String decision) {
            server.setAttribute(LOOMGATE_RATE_LIMIT, decision);
        }
        int status = x.status();
        if (status != 0) {
            server.setAttribute(STATUS, status);
        }
        if (x.grpcStatus() >= 0) {
            server.setAttribute(RPC_SYSTEM, "grpc");
            if (s.rpc != null) {
                rpcNames(server, s.rpc);
            }
            server.setAttribute(RPC_GRPC_STATUS, x.grpcStatus());
        }
        if (failure != null) {
            server.setAttribute(ERROR_TYPE, failure.kind().name().toLowerCase(Locale.ROOT));
        } else if (status >= 500) {
            server.setAttribute(ERROR_TYPE, Integer.toString(status));
        }
        // A server span's error is a 5xx (a 4xx is the client's doing), or a failure the gateway could not answer.
        if (status >= 500 || failure != null && status == 0 || x.grpcStatus() > 0) {
            server.setStatus(StatusCode.ERROR);
        }
        server.end();
    }

    private static void endClient(Spans s, ProxyFailure failure) {
        Span client = s.client;
        if (client == null) {
            return;
        }
        s.client = null;
        if (failure != null) {
            client.setAttribute(ERROR_TYPE, failure.kind().name().toLowerCase(Locale.ROOT));
            client.setStatus(StatusCode.ERROR, failure.kind().name());
        }
        client.end();
    }

    /**
     * The gRPC method of a gRPC call (content-type application/grpc, alone or with a suffix such as +proto),
     * {@code package.Service/Method} from its path {@code /package.Service/Method}; null otherwise.
     */
    static String grpcMethod(RequestHead request, String target) {
        String type = request.headers().first("Content-Type");
        if (type == null || !type.regionMatches(true, 0, "application/grpc", 0, 16)
                || type.length() > 16 && type.charAt(16) != '+' && type.charAt(16) != ';') {
            return null;
        }
        String path = path(target);
        int slash = path.indexOf('/', 1);
        return path.startsWith("/") && slash > 1 && slash < path.length() - 1 ? path.substring(1) : null;
    }

    /** The RPC semantic conventions' names of a gRPC call: rpc.system, rpc.service and rpc.method. */
    private static void rpcNames(Span span, String rpc) {
        int slash = rpc.indexOf('/');
        span.setAttribute(RPC_SYSTEM, "grpc");
        span.setAttribute(RPC_SERVICE, rpc.substring(0, slash));
        span.setAttribute(RPC_METHOD, rpc.substring(slash + 1));
    }

    private static String path(String target) {
        int q = target.indexOf('?');
        return q < 0 ? target : target.substring(0, q);
    }

    /** "HTTP/1.1" → "1.1", "HTTP/2.0" → "2" (the semantic conventions' spelling). */
    static String protocolVersion(String version) {
        String v = version.startsWith("HTTP/") ? version.substring(5) : version;
        return v.equals("2.0") ? "2" : v;
    }

    private static void setHost(Span span, String host) {
        int colon = host.lastIndexOf(':');
        if (colon > 0 && host.indexOf(']', colon) < 0) {
            span.setAttribute(SERVER_ADDRESS, unbracket(host.substring(0, colon)));
            long port = parsePort(host.substring(colon + 1));
            if (port > 0) {
                span.setAttribute(SERVER_PORT, port);
            }
        } else {
            span.setAttribute(SERVER_ADDRESS, unbracket(host));
        }
    }

    private static String unbracket(String host) {
        return host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
    }

    private static long parsePort(String text) {
        try {
            return Long.parseLong(text);
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    /** Exports the spans still queued (within a bound) and stops the exporter. */
    @Override
    public void close() {
        close(OtelTracingSupport.CLOSE_TIMEOUT);
    }

    /**
     * {@link #close()} within another bound: a test whose collector it closed itself need not wait the default out
     * while the exporter retries (BoundedSpanQueueTest: 5 s of its 5.8, alone at its module's end).
     */
    void close(Duration bound) {
        provider.shutdown().join(bound.toMillis(), TimeUnit.MILLISECONDS);
    }
}
