package io.loomgate.proxy;

import io.loomgate.grpc.Grpc;
import io.loomgate.grpc.GrpcMessage;
import io.loomgate.grpc.GrpcStatus;
import io.loomgate.http.Headers;
import io.loomgate.http.ResponseHead;
import io.loomgate.http.Status;
import io.loomgate.http1.BodyFraming;
import io.loomgate.server.ServerExchange;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * The only writer of responses the gateway makes itself (404, 502, 503, 504 …): short, specific, plain text, and
 * marked with Via so a client can tell the gateway's answer from the origin's. A gRPC call is never answered with
 * text: it gets a gRPC status ({@link GrpcReplies} chooses it), as a trailers-only response (one HEADERS frame with
 * END_STREAM: {@code :status 200}, {@code content-type: application/grpc}, {@code grpc-status},
 * {@code grpc-message}), or in trailers when the origin's head had already gone out.
 */
final class LocalReplies {
    private LocalReplies() {
    }

    /**
     * Answers a failure: a local reply if no response started; otherwise rethrown, so the connection loop aborts the
     * client connection (a cut body must not look complete). A client that went away gets no reply either.
     */
    static void answer(ServerExchange sx, ProxyFailure failure) throws IOException {
        if (sx.isResponseStarted()) {
            throw failure;
        }
        if (failure.clientGone()) {
            sx.closeAfterResponse();
            throw failure;
        }
        send(sx, failure);
    }

    static void send(ServerExchange sx, ProxyFailure failure) throws IOException {
        ResponseHead head = ResponseHead.of(failure.status());
        if (failure.kind() == ProxyFailure.Kind.OVERLOADED || failure.kind() == ProxyFailure.Kind.POOL_EXHAUSTED) {
            head.headers().add("Retry-After", "1");
        } else if (failure.kind() == ProxyFailure.Kind.CIRCUIT_OPEN) {
            head.headers().add("Retry-After", Long.toString(failure.retryAfterSeconds()));
        }
        if (!failure.keepClientConnection()) {
            sx.closeAfterResponse();
        }
        send(sx, head, failureText(failure));
    }

    /** The body of the gateway's answer to {@code failure} (its length is what the access log counts). */
    static String failureText(ProxyFailure failure) {
        return failure.status() + " " + Status.reason(failure.status()) + ": " + clientText(failure) + "\n";
    }

    /**
     * What the client is told. A failure of the gateway or its upstreams (5xx) is told by kind only: its message
     * names upstream addresses, route ids and limits, which are the operator's to see (in the log, at warn, with the
     * exchange; the access log's {@code failure} field has the kind). The client's own mistakes (4xx) keep their
     * specific message: it names only what the client sent.
     */
    static String clientText(ProxyFailure failure) {
        return switch (failure.kind()) {
            case OVERLOADED -> "the gateway is at capacity for this request; retry later";
            // the breaker's and the route's names are the operator's (the metrics and /routes show them)
            case CIRCUIT_OPEN -> "the upstream is failing and its circuit breaker is open; retry later";
            case CONNECT_REFUSED, CONNECT_TIMEOUT -> "the upstream could not be reached";
            case UPSTREAM_TLS -> "the secure connection to the upstream failed";
            case POOL_EXHAUSTED -> "the upstream has no free connection; retry later";
            case UPSTREAM_TIMEOUT -> "the upstream did not answer in time";
            case UPSTREAM_RESET -> "the upstream closed the connection before answering";
            case BAD_RESPONSE -> "the upstream sent an invalid response";
            case UPSTREAM_ABORTED -> "the upstream failed mid-response";
            case INTERNAL -> "internal error in the gateway";
            case LOOP_DETECTED -> "the request came back to the gateway: its route forms a forwarding loop";
            case CLIENT_TIMEOUT -> "the request body did not arrive in time";
            case BAD_REQUEST, BODY_TOO_LARGE, NO_ROUTE, DEADLINE_EXCEEDED, CLIENT_ABORTED, DRAIN_CUT ->
                    failure.getMessage();
        };
    }

    static void send(ServerExchange sx, ResponseHead head, String text) throws IOException {
        byte[] body = text.getBytes(StandardCharsets.UTF_8);
        head.headers().set("Content-Type", "text/plain; charset=utf-8");
        head.headers().set("Via", ForwardedHeaders.VIA);
        ServerExchange.ResponseBody out = sx.sendHead(head, new BodyFraming.Fixed(body.length));
        out.write(body);
        out.finish(null);
    }

    /**
     * Answers a failed gRPC call: trailers-only before any response head; after one (the origin's), its body ends with
     * trailers carrying the status, which is how every gRPC call ends. A client that went away gets nothing, and a
     * body that cannot end cleanly (a content-length not met) is aborted by rethrowing, as for any exchange.
     */
    static void answerGrpc(Exchange x, ProxyFailure failure, GrpcStatus status) throws IOException {
        ServerExchange sx = x.downstream;
        if (failure.clientGone()) {
            throw failure;
        }
        if (!sx.isResponseStarted()) {
            sendGrpc(sx, null, status, clientText(failure));
            return;
        }
        if (x.responseOut == null) {
            throw failure;
        }
        Headers trailers = new Headers(2);
        trailers.add("grpc-status", status.text());
        trailers.add("grpc-message", GrpcMessage.encode(clientText(failure)));
        try {
            x.responseOut.finish(trailers);
        } catch (IOException e) {
            failure.addSuppressed(e);
            throw failure;
        }
    }

    /**
     * A trailers-only gRPC answer: status 200, no body, the status in the head. The fields of {@code from} (a
     * filter's reply: Retry-After, X-RateLimit-*, WWW-Authenticate) go along as response metadata, except its
     * content type and length.
     */
    static void sendGrpc(ServerExchange sx, ResponseHead from, GrpcStatus status, String message) throws IOException {
        ResponseHead head = ResponseHead.of(200);
        Headers h = head.headers();
        if (from != null) {
            from.headers().forEach((name, value) -> {
                if (!name.equalsIgnoreCase("Content-Type") && !name.equalsIgnoreCase("Content-Length")) {
                    h.add(name, value);
                }
            });
        }
        h.set("content-type", Grpc.CONTENT_TYPE);
        h.set("grpc-status", status.text());
        if (message != null && !message.isEmpty()) {
            h.set("grpc-message", GrpcMessage.encode(message));
        }
        h.set("Via", ForwardedHeaders.VIA);
        sx.sendHead(head, BodyFraming.NONE).finish(null);
    }

    /** A reply a filter asked for (RedirectTo and the like), body as given. */
    static void send(ServerExchange sx, ResponseHead head, byte[] body) throws IOException {
        byte[] b = body == null ? new byte[0] : body;
        ServerExchange.ResponseBody out = sx.sendHead(head, new BodyFraming.Fixed(b.length));
        out.write(b);
        out.finish(null);
    }
}
