package io.loomgate.proxy;

import io.loomgate.http.Method;
import io.loomgate.http.RequestHead;
import io.loomgate.http.ResponseHead;
import io.loomgate.proxy.ProxyFailure.Kind;
import java.io.IOException;

/**
 * The first phase: requests no route may see. {@code OPTIONS *} is the gateway's own to answer; CONNECT, targets
 * that are not origin-form and paths with dot-segments are refused before any route is matched, so no predicate or
 * filter ever reasons about them.
 */
final class RequestScreen {
    private RequestScreen() {
    }

    /** Requests the gateway answers itself without a route: {@code OPTIONS *}; CONNECT and the like are refused. */
    static boolean answeredLocally(Exchange x) throws IOException {
        RequestHead r = x.request;
        if (r.target().equals("*") && r.method().equals(Method.OPTIONS)) {
            ResponseHead head = ResponseHead.of(200);
            head.headers().add("Allow", "GET, HEAD, POST, PUT, DELETE, OPTIONS, PATCH, TRACE");
            LocalReplies.send(x.downstream, head, new byte[0]);
            x.outcome.status = 200;
            return true; // reported by ProxyHandler.end, like every exchange
        }
        if (r.method().equals(Method.CONNECT)) {
            throw new ProxyFailure(Kind.BAD_REQUEST, 405, "CONNECT is not supported by this gateway", null);
        }
        if (r.target().charAt(0) != '/') {
            throw new ProxyFailure(Kind.BAD_REQUEST, "request target must be origin-form", null);
        }
        if (DotSegments.present(r.path())) {
            throw new ProxyFailure(Kind.BAD_REQUEST, "path contains a dot-segment ('.' or '..'), which could "
                    + "reach a path no route allows", null);
        }
        return false;
    }

    /**
     * The path as the filters left it, just before it goes upstream: a path filter can make a dot-segment the screen
     * never saw ({@code RewritePath=-v1, } turns {@code /ver/..-v1/admin} into {@code /ver/../admin}; {@code SetPath}
     * fills {@code {v}} of {@code Path=/a/v{v}/**} with {@code ..}), and the origin would resolve it to a path whose
     * route has filters this one has not. Refused as the screen refuses the client's own.
     */
    static void afterFilters(Exchange x) throws ProxyFailure {
        String target = x.request.target();
        if (!target.equals(x.originalTarget()) && DotSegments.present(x.request.path())) {
            throw new ProxyFailure(Kind.BAD_REQUEST, "path contains a dot-segment ('.' or '..') after the route's "
                    + "filters rewrote it, which could reach a path no route allows", null);
        }
    }

    /**
     * Passes through other Loomgates a request may have made before this one (its Via entries): more, and it is taken
     * for a forwarding loop through gateways this one cannot recognise as itself. A loop through this instance is
     * found sooner, at its first return, by its own CDN-Loop id ({@link ForwardedHeaders#RETURNED_HERE}): the count
     * alone did not do on a fixed pool of N <= 10 threads, where each pass holds a thread while it waits for the next
     * and the tenth never got one (session 59, combo10b: every client stalled for the route's timeout). Ten leaves
     * room for chains of gateways several tiers deep, as RFC 8586's CDN-Loop leaves the bound to each CDN.
     */
    static final int MAX_OWN_HOPS = 10;

    /**
     * Refuses, with 508 Loop Detected (RFC 5842 §7.2), a request that this instance forwarded before (its own
     * CDN-Loop id) or that already passed through a Loomgate {@code ownHops} times ({@link ForwardedHeaders#apply}),
     * at least {@link #MAX_OWN_HOPS}: before any filter or upstream, after the route is matched, so the access log and
     * the metrics name the route that loops.
     */
    static void refuseLoop(int ownHops) throws ProxyFailure {
        if (ownHops == ForwardedHeaders.RETURNED_HERE) {
            throw new ProxyFailure(Kind.LOOP_DETECTED, "the request came back to this gateway (its CDN-Loop holds "
                    + "this instance's id): the route's origin leads back to the gateway, a forwarding loop", null);
        }
        if (ownHops >= MAX_OWN_HOPS) {
            throw new ProxyFailure(Kind.LOOP_DETECTED, "the request already passed through a Loomgate " + ownHops
                    + " times (its Via): the route's origin leads back to a gateway, a forwarding loop", null);
        }
    }
}
