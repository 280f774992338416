package io.loomgate.server;

import io.loomgate.http.HttpVersion;
import io.loomgate.http.Status;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;

/**
 * The answers the connection loop itself gives when a request cannot even reach a handler: a head that breaks
 * RFC 9112 (400, 414, 431, 501, 505), a head not received in time (408), an expectation it cannot meet (417).
 * Every such answer closes the connection, because after a malformed head the next request's first byte cannot
 * be known (a request hidden in a rejected one must never be read as a request). Gateway decisions about routes and
 * upstreams are answered by the proxy's LocalReplies; this class only covers what happens before a handler runs.
 */
final class ProtocolErrors {
    private ProtocolErrors() {
    }

    static void send(OutputStream out, int status, String detail) throws IOException {
        String body = status + " " + Status.reason(status) + ": " + sanitize(detail) + "\n";
        byte[] bodyBytes = body.getBytes(StandardCharsets.UTF_8);
        String head = HttpVersion.HTTP_1_1 + " " + status + " " + Status.reason(status) + "\r\n"
                + "Content-Type: text/plain; charset=utf-8\r\n"
                + "Content-Length: " + bodyBytes.length + "\r\n"
                + "Connection: close\r\n\r\n";
        out.write(head.getBytes(StandardCharsets.ISO_8859_1));
        out.write(bodyBytes);
        out.flush();
    }

    /** Keeps the detail on one printable line: it may quote bytes the client sent. */
    private static String sanitize(String s) {
        if (s == null) {
            return "";
        }
        StringBuilder sb = new StringBuilder(Math.min(s.length(), 200));
        for (int i = 0; i < s.length() && sb.length() < 200; i++) {
            char c = s.charAt(i);
            sb.append(c >= 0x20 && c < 0x7f ? c : '?');
        }
        return sb.toString();
    }
}
