package io.loomgate.proxy;

import io.loomgate.http.ResponseHead;
import io.loomgate.http.Status;
import io.loomgate.http1.BodyFraming;
import io.loomgate.server.ServerExchange;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * The only writer of responses the gateway makes itself (404, 502, 503, 504 …): short, specific, plain text, and
 * marked with Via so a client can tell the gateway's answer from the origin's.
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
        if (failure.kind() == ProxyFailure.Kind.CLIENT_ABORTED) {
            sx.closeAfterResponse();
            throw failure;
        }
        send(sx, failure);
    }

    static void send(ServerExchange sx, ProxyFailure failure) throws IOException {
        ResponseHead head = ResponseHead.of(failure.status());
        if (failure.kind() == ProxyFailure.Kind.OVERLOADED || failure.kind() == ProxyFailure.Kind.POOL_EXHAUSTED) {
            head.headers().add("Retry-After", "1");
        }
        if (!failure.keepClientConnection()) {
            sx.closeAfterResponse();
        }
        send(sx, head, failure.status() + " " + Status.reason(failure.status()) + ": " + failure.getMessage() + "\n");
    }

    static void send(ServerExchange sx, ResponseHead head, String text) throws IOException {
        byte[] body = text.getBytes(StandardCharsets.UTF_8);
        head.headers().set("Content-Type", "text/plain; charset=utf-8");
        head.headers().set("Via", ForwardedHeaders.VIA);
        ServerExchange.ResponseBody out = sx.sendHead(head, new BodyFraming.Fixed(body.length));
        out.write(body);
        out.finish(null);
    }

    /** A reply a filter asked for (RedirectTo and the like), body as given. */
    static void send(ServerExchange sx, ResponseHead head, byte[] body) throws IOException {
        byte[] b = body == null ? new byte[0] : body;
        ServerExchange.ResponseBody out = sx.sendHead(head, new BodyFraming.Fixed(b.length));
        out.write(b);
        out.finish(null);
    }
}
