package io.loomgate.security;

import io.loomgate.filter.FilterExchange;
import io.loomgate.http.ResponseHead;
import io.loomgate.http.Status;
import java.nio.charset.StandardCharsets;

/** The answers the security filters give instead of forwarding: short, specific, plain text, never cached. */
final class SecurityReplies {
    private SecurityReplies() {
    }

    /** A reply whose body is {@code "<status> <reason>: <detail>"}; extra header fields as name, value pairs. */
    static void reply(FilterExchange exchange, int status, String detail, String... fields) {
        ResponseHead head = ResponseHead.of(status);
        for (int i = 0; i + 1 < fields.length; i += 2) {
            head.headers().add(fields[i], fields[i + 1]);
        }
        head.headers().set("Content-Type", "text/plain; charset=utf-8");
        head.headers().set("Cache-Control", "no-store");
        String text = status + " " + Status.reason(status) + (detail == null ? "" : ": " + detail) + "\n";
        exchange.replyLocally(head, text.getBytes(StandardCharsets.UTF_8));
    }
}
