package io.loomgate.proxy;

import io.loomgate.http.Headers;
import io.loomgate.http.HttpVersion;
import io.loomgate.http.ResponseHead;
import io.loomgate.http.Status;
import io.loomgate.http1.BodyFraming;

/**
 * Rewrites the origin's response head into the one the client gets: the origin's connection fields out (hop-by-hop,
 * RFC 9110 §7.6.1), Via in, the framing this side will use, and the decision whether the origin's connection may be
 * reused, read before those fields go.
 */
final class ResponseHeadRewriter {

    /** How to answer the client: the framing to send the body with, and whether the origin keeps its connection. */
    record ForClient(BodyFraming framing, boolean originKeepsAlive) {
    }

    private ResponseHeadRewriter() {
    }

    /** Rewrites a final (non-101) head in place, received from an HTTP/1.x origin. */
    static ForClient forClient(ResponseHead head, BodyFraming originFraming) {
        return forClient(head, originFraming, false);
    }

    /**
     * Rewrites a final (non-101) head in place; {@code overHttp2}: it came over HTTP/2 (the head's version says
     * HTTP/1.1 then: the codec's), which Via's received-protocol names.
     */
    static ForClient forClient(ResponseHead head, BodyFraming originFraming, boolean overHttp2) {
        Headers h = head.headers();
        boolean keepAlive = keepsAlive(head);
        BodyFraming framing = clientFraming(originFraming);
        HopByHop.strip(h);
        // The server writes the framing it uses. Content-Length is set to a fixed length there, keeping the origin's
        // field when it already spells it (no string per response), so only other framings lose it here; and a fixed
        // length whose status a filter made one without a body (a plugin's setResponse: 204, 304), where the server
        // sets none and the origin's would describe a body the client never gets (RFC 9110 §8.6).
        if (framing instanceof BodyFraming.Fixed ? Status.forbidsBody(head.status())
                : !(framing instanceof BodyFraming.None)) {
            h.remove("Content-Length");
        }
        String via = h.first("Via");
        String own = overHttp2 ? ForwardedHeaders.VIA_2 : ForwardedHeaders.via(head.version());
        h.set("Via", via == null ? own : via + ", " + own);
        return new ForClient(framing, keepAlive);
    }

    /** Rewrites a 101 in place: connection fields out, except the Upgrade the client asked for. */
    static void forTunnel(ResponseHead head) {
        String protocol = head.headers().first("Upgrade");
        HopByHop.strip(head.headers());
        if (protocol != null) {
            head.headers().set("Upgrade", protocol);
        }
        head.headers().set("Connection", "Upgrade");
    }

    /** Rewrites an informational head (103 and the like) in place. */
    static void interim(ResponseHead head) {
        HopByHop.strip(head.headers());
    }

    /** An origin's body of unknown length is re-chunked for the client, so the client's connection survives it. */
    static BodyFraming clientFraming(BodyFraming origin) {
        return origin instanceof BodyFraming.UntilClose ? BodyFraming.CHUNKED : origin;
    }

    /** Whether the origin lets its connection be reused after this response (RFC 9112 §9.3). */
    static boolean keepsAlive(ResponseHead head) {
        Headers h = head.headers();
        if (HttpVersion.HTTP_1_1.equals(head.version())) {
            return !h.hasToken("Connection", "close");
        }
        return h.hasToken("Connection", "keep-alive");
    }
}
