package io.loomgate.http1;

import static java.nio.charset.StandardCharsets.ISO_8859_1;

import io.loomgate.http.Headers;
import io.loomgate.http.HttpLimits;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;

/** Test helpers for writing raw HTTP/1.1 bytes and reading them back. */
final class Wire {
    private Wire() {
    }

    /** Lines joined with CRLF, each line followed by CRLF (so a trailing "" line is the empty line ending a head). */
    static String lines(String... lines) {
        StringBuilder sb = new StringBuilder();
        for (String line : lines) {
            sb.append(line).append("\r\n");
        }
        return sb.toString();
    }

    static byte[] bytes(String s) {
        return s.getBytes(ISO_8859_1);
    }

    static String text(byte[] b) {
        return new String(b, ISO_8859_1);
    }

    static HttpInput input(String s) {
        return new HttpInput(new ByteArrayInputStream(bytes(s)), 8192, HttpLimits.DEFAULTS);
    }

    static HttpInput input(String s, HttpLimits limits) {
        return new HttpInput(new ByteArrayInputStream(bytes(s)), 8192, limits);
    }

    static HttpInput input(InputStream in, int bufferSize) {
        return new HttpInput(in, bufferSize, HttpLimits.DEFAULTS);
    }

    /** "name: value" strings, in order, for compact assertions. */
    static List<String> fields(Headers h) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < h.size(); i++) {
            out.add(h.name(i) + ": " + h.value(i));
        }
        return out;
    }
}
