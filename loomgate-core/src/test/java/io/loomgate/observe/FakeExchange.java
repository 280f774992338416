package io.loomgate.observe;

import io.loomgate.proxy.ExchangeView;
import io.loomgate.proxy.ProxyFailure;

/** A synthetic exchange for feeding listeners: every value a listener may read, fixed by the test. */
record FakeExchange(String routeId, String method, String target, String clientAddress, String upstreamId,
                    String endpoint, int status, long startNanos, long upstreamNanos, long totalNanos, long bytesIn,
                    long bytesOut, String traceId, ProxyFailure failure) implements ExchangeView {

    static FakeExchange ok(String route, String method, int status, long totalMillis) {
        return new FakeExchange(route, method, "/r/" + route, "127.0.0.1:50000", "up-" + route, "127.0.0.1:9000",
                status, System.nanoTime(), totalMillis * 500_000L, totalMillis * 1_000_000L, 10, 100,
                "4bf92f3577b34da6a3ce929d0e0e4736", null);
    }

    /** The span id beside {@link #traceId()}: the one a traceparent of this trace sent upstream would carry. */
    @Override
    public String spanId() {
        return traceId == null ? null : "00f067aa0ba902b7";
    }

    FakeExchange failedWith(ProxyFailure.Kind kind, int sentStatus) {
        return new FakeExchange(routeId, method, target, clientAddress, upstreamId, endpoint, sentStatus, startNanos,
                -1, totalNanos, bytesIn, 0, traceId, new ProxyFailure(kind, "synthetic " + kind, null));
    }

    FakeExchange withBytes(long in, long out) {
        return new FakeExchange(routeId, method, target, clientAddress, upstreamId, endpoint, status, startNanos,
                upstreamNanos, totalNanos, in, out, traceId, failure);
    }

    /** This exchange as a gRPC call whose client got grpc-status {@code code}. */
    ExchangeView asGrpc(int code) {
        return (ExchangeView) java.lang.reflect.Proxy.newProxyInstance(ExchangeView.class.getClassLoader(),
                new Class<?>[] {ExchangeView.class}, (proxy, method, args) -> method.getName().equals("grpcStatus")
                        ? (Object) code : method.invoke(this, args));
    }
}
