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
}
