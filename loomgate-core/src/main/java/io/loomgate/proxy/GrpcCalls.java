package io.loomgate.proxy;

import io.loomgate.grpc.Grpc;
import io.loomgate.grpc.GrpcStatus;
import io.loomgate.grpc.GrpcTimeout;
import io.loomgate.http.Headers;
import io.loomgate.http.Method;
import io.loomgate.http.RequestHead;
import io.loomgate.http.ResponseHead;
import io.loomgate.proxy.ProxyFailure.Kind;
import io.loomgate.threads.Watchdog;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * What being a gRPC call changes in the phases: the call is recognised once, by its content type; its
 * {@code grpc-timeout} becomes the exchange's deadline, armed on the shared watchdog (whose expiry cancels the
 * attempt in flight, {@link Exchange#deadlinePassed}), bounding the connection wait and the head wait and passed on to
 * the origin reduced; and the status the client got is read from the origin's answer. The gateway's own answers are
 * chosen by {@link GrpcReplies} and written by {@link LocalReplies}. Every method runs on the request's thread.
 */
final class GrpcCalls {
    /** A grpc-timeout longer than this (about 36 years; 99999999H is allowed) is no deadline at all. */
    private static final long NO_DEADLINE_NANOS = 1L << 60;
    /**
     * How far ahead of the gateway's deadline a client's own may fall: the time between the client's sending the
     * call's head (the grpc-timeout is what it had left then) and the gateway's reading it, on a loaded machine.
     */
    private static final long CLIENT_DEADLINE_LEAD_NANOS = 50_000_000;

    private GrpcCalls() {
    }

    /**
     * Marks a gRPC call (one header lookup, and only for POST: the only cost a request that is not gRPC pays). Over
     * HTTP/1.1 it is refused: gRPC needs HTTP/2's trailers, and gRPC-Web has content types of its own.
     */
    static void recognise(Exchange x) throws ProxyFailure {
        RequestHead r = x.request;
        if (!Method.POST.equals(r.method()) || !Grpc.isGrpc(r.headers().first("Content-Type"))) {
            return;
        }
        if (r.version().startsWith("HTTP/1")) {
            throw new ProxyFailure(Kind.BAD_REQUEST, 505, "gRPC needs HTTP/2: connect with h2c (prior knowledge) or"
                    + " h2 over TLS; gRPC over HTTP/1.1 and gRPC-Web are not supported", null);
        }
        GrpcCall call = new GrpcCall(); // its own: the shared inactive one is never written
        call.active = true;
        x.grpc = call;
        String timeout = r.headers().first("grpc-timeout");
        if (timeout != null) {
            startDeadline(x, timeout);
        }
    }

    /**
     * Arms the call's deadline, counted from when its head was read. A malformed value is refused (INTERNAL, as
     * grpc-go's server answers it) rather than ignored: a client that meant a deadline would otherwise wait without one.
     */
    private static void startDeadline(Exchange x, String value) throws ProxyFailure {
        long nanos;
        try {
            nanos = GrpcTimeout.parseNanos(value);
        } catch (IllegalArgumentException e) {
            String shown = value.length() > 24 ? value.substring(0, 24) + "..." : value;
            throw new ProxyFailure(Kind.BAD_REQUEST, "malformed grpc-timeout '" + shown + "': " + e.getMessage(),
                    null);
        }
        if (nanos >= NO_DEADLINE_NANOS) {
            return;
        }
        long at = x.startNanos + nanos;
        x.grpc.deadlineNanos = at == 0 ? 1 : at; // 0 means "none"
        x.grpc.watch = Watchdog.shared().deadline(x::deadlinePassed);
        x.grpc.watch.armAt(x.grpc.deadlineNanos);
    }

    /**
     * Stops watching the deadline; a failure after it passed is the deadline's (the watchdog cancelled the attempt,
     * or a wait bounded by the deadline ran out), except a client that went away, which needs no answer.
     */
    static ProxyFailure endDeadline(Exchange x, ProxyFailure failure) {
        x.grpc.watch.disarm();
        x.grpc.watch.close();
        if (failure == null || failure.clientGone() || failure.kind() == Kind.DEADLINE_EXCEEDED
                || !x.pastDeadline()) {
            return failure;
        }
        long ms = (x.grpc.deadlineNanos - x.startNanos) / 1_000_000;
        return new ProxyFailure(Kind.DEADLINE_EXCEEDED, "the call's deadline (grpc-timeout, " + ms + " ms) passed"
                + (x.upstream.attempt == null ? "" : " waiting for " + x.upstream.attempt.endpoint() + " (route '"
                + x.routeId() + "'): the upstream request was cancelled"), failure);
    }

    /**
     * The grpc-status a call reports whose client left (reset its stream, closed its connection): {@code CANCELLED},
     * or {@code DEADLINE_EXCEEDED} when it left at its deadline: gRPC clients enforce their deadline themselves, reset
     * the stream when it passes and report that. Their deadline falls a little before the gateway's, which counts the
     * same grpc-timeout from when it read the head, so a reset within {@link #CLIENT_DEADLINE_LEAD_NANOS} of the
     * gateway's deadline is taken as the client's deadline.
     */
    static GrpcStatus reportedByClientThatLeft(Exchange x) {
        boolean atDeadline = x.grpc.hasDeadline() && (x.grpc.expired
                || System.nanoTime() - (x.grpc.deadlineNanos - CLIENT_DEADLINE_LEAD_NANOS) >= 0);
        return atDeadline ? GrpcStatus.DEADLINE_EXCEEDED : GrpcStatus.CANCELLED;
    }

    /** A connection deadline (System.nanoTime()) no later than the gRPC deadline, if the call has one. */
    static long withinDeadline(Exchange x, long deadline) {
        return x.grpc.hasDeadline() && deadline - x.grpc.deadlineNanos > 0 ? x.grpc.deadlineNanos : deadline;
    }

    /** The wait for the response head: the route's (or try's) timeout, within what is left of a gRPC deadline. */
    static Duration headTimeout(Exchange x, Duration timeout) {
        if (!x.grpc.hasDeadline()) {
            return timeout;
        }
        long left = x.grpc.deadlineNanos - System.nanoTime();
        return left < timeout.toNanos() ? Duration.ofNanos(Math.max(1, left)) : timeout;
    }

    /**
     * The origin is told how long the call has left (grpc-timeout reduced by the time already spent here, as Envoy
     * does), so it stops working when nobody waits any more. A deadline that passed while connecting ends here.
     */
    static void passDeadlineOn(Exchange x, UpstreamAttempt attempt) throws ProxyFailure {
        long left = x.grpc.deadlineNanos - System.nanoTime();
        if (left <= 0 || x.grpc.expired) {
            throw new ProxyFailure(Kind.DEADLINE_EXCEEDED, "the call's deadline passed before it could be sent to "
                    + attempt.endpoint() + " (route '" + x.routeId() + "')", null);
        }
        x.request.headers().set("grpc-timeout", GrpcTimeout.format(left));
    }

    /**
     * The grpc-status the client got: the origin's, in its trailers or in its head (trailers-only); when neither has
     * one, what the client makes of the HTTP status (an origin's 404 page is UNIMPLEMENTED to it, a 503 UNAVAILABLE,
     * where this said UNKNOWN for all until session 55).
     */
    static int statusSent(ResponseHead head, Headers trailers) {
        String s = trailers == null ? null : trailers.first("grpc-status");
        int code = GrpcStatus.parseCode(s != null ? s : head.headers().first("grpc-status"));
        return code < 0 ? GrpcReplies.mappedByClient(head.status()).code() : code;
    }

    /** A filter's reply as a grpc-message: its text body (filters write "429 Too Many Requests: ..."), else status. */
    static String replyText(Exchange x) {
        byte[] b = x.localReply.body();
        String text = b == null ? "" : new String(b, 0, Math.min(b.length, 1024), StandardCharsets.UTF_8).strip();
        return text.isEmpty() ? "the gateway answered " + x.localReply.head().status() : text;
    }
}
