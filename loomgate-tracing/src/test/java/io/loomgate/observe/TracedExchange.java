package io.loomgate.observe;

import io.loomgate.http.ConnectionAttributes;
import io.loomgate.http.Headers;
import io.loomgate.http.RequestHead;
import io.loomgate.proxy.ExchangeView;
import io.loomgate.proxy.ProxyFailure;
import java.util.HashMap;
import java.util.Map;

/**
 * An exchange as the proxy shows it to its listeners, its values set by the test as the proxy would move them
 * (sampled, trace ids drawn, attempts numbered), with attributes of its own and the connections it shares.
 */
final class TracedExchange implements ExchangeView {
    private final RequestHead request;
    private final String traceId;
    private final String spanId;
    private final ConnectionAttributes connection;
    private final Map<String, Object> attributes = new HashMap<>();
    ConnectionAttributes upstreamConnection;
    String attemptSpanId;
    int attemptNumber = -1;
    int attemptStatus;
    int status;
    int grpcStatus = -1;
    ProxyFailure failure;

    TracedExchange(RequestHead request, String traceId, String spanId, ConnectionAttributes connection) {
        this.request = request;
        this.traceId = traceId;
        this.spanId = spanId;
        this.connection = connection;
    }

    static TracedExchange get(String target, String traceId, String spanId, ConnectionAttributes connection) {
        Headers h = new Headers();
        h.add("Host", "gw.example:8080");
        return new TracedExchange(new RequestHead("GET", target, "HTTP/2.0", h), traceId, spanId, connection);
    }

    /** The next upstream attempt, on {@code upstream}, its traceparent carrying {@code span}. */
    void attempt(String span, ConnectionAttributes upstream) {
        attemptNumber++;
        attemptSpanId = span;
        attemptStatus = 0;
        upstreamConnection = upstream;
    }

    @Override
    public String routeId() {
        return "r";
    }

    @Override
    public String method() {
        return request.method();
    }

    @Override
    public RequestHead request() {
        return request;
    }

    @Override
    public String target() {
        return request.target();
    }

    @Override
    public String clientAddress() {
        return "127.0.0.1";
    }

    @Override
    public String upstreamId() {
        return "up";
    }

    @Override
    public String endpoint() {
        return attemptNumber < 0 ? null : "127.0.0.1:9000";
    }

    @Override
    public int status() {
        return status;
    }

    @Override
    public long startNanos() {
        return System.nanoTime();
    }

    @Override
    public long upstreamNanos() {
        return -1;
    }

    @Override
    public long totalNanos() {
        return 0;
    }

    @Override
    public long bytesIn() {
        return 0;
    }

    @Override
    public long bytesOut() {
        return 0;
    }

    @Override
    public String traceId() {
        return traceId;
    }

    @Override
    public String spanId() {
        return spanId;
    }

    @Override
    public boolean traceSampled() {
        return true;
    }

    @Override
    public String attemptSpanId() {
        return attemptSpanId;
    }

    @Override
    public int attemptNumber() {
        return attemptNumber;
    }

    @Override
    public int attemptStatus() {
        return attemptStatus;
    }

    @Override
    public Object attribute(String name) {
        return attributes.get(name);
    }

    @Override
    public void setAttribute(String name, Object value) {
        if (value == null) {
            attributes.remove(name);
        } else {
            attributes.put(name, value);
        }
    }

    /** The attributes left on the exchange (a listener's state must be gone after the exchange's end). */
    Map<String, Object> attributes() {
        return attributes;
    }

    @Override
    public ConnectionAttributes connectionAttributes() {
        return connection;
    }

    @Override
    public ConnectionAttributes upstreamConnectionAttributes() {
        return upstreamConnection;
    }

    @Override
    public ProxyFailure failure() {
        return failure;
    }

    @Override
    public int grpcStatus() {
        return grpcStatus;
    }
}
