package io.loomgate.http2;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.loomgate.http.RequestHead;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** An HTTP/2 request's fields become the RequestHead an HTTP/1.1 request would: Host first, cookies joined. */
class RequestTranslationTest {
    private static RequestHead translate(String... namesAndValues) throws Http2Exception {
        RequestFields f = new RequestFields(false, 8);
        for (int i = 0; i < namesAndValues.length; i += 2) {
            f.field(namesAndValues[i], namesAndValues[i + 1]);
        }
        return f.toRequest(1);
    }

    private static List<String> fields(RequestHead r) {
        List<String> out = new ArrayList<>();
        r.headers().forEach((n, v) -> out.add(n + ": " + v));
        return out;
    }

    @Test
    void authorityBecomesTheFirstFieldHost() throws Exception {
        RequestHead r = translate(":method", "GET", ":scheme", "http", ":path", "/a?b", ":authority", "example.org",
                "accept", "*/*", "cookie", "a=1", "x-one", "1", "cookie", "b=2");
        assertThat(r.method()).isEqualTo("GET");
        assertThat(r.target()).isEqualTo("/a?b");
        assertThat(fields(r)).containsExactly("host: example.org", "accept: */*", "x-one: 1", "cookie: a=1; b=2");
    }

    @Test
    void aHostFieldThatAgreesWithAuthorityIsNotRepeated() throws Exception {
        RequestHead r = translate(":method", "GET", ":scheme", "http", ":path", "/", ":authority", "example.org",
                "host", "EXAMPLE.org", "accept", "*/*", "host", "example.org");
        assertThat(fields(r)).containsExactly("host: example.org", "accept: */*");
    }

    @Test
    void aHostFieldThatDiffersFromAuthorityIsMalformed() {
        assertThatThrownBy(() -> translate(":method", "GET", ":scheme", "http", ":path", "/", ":authority", "a.org",
                "host", "b.org"))
                .isInstanceOf(Http2Exception.class).hasMessageContaining("Host differs from :authority");
    }

    @Test
    void withoutAuthorityTheClientsHostStays() throws Exception {
        RequestHead r = translate(":method", "GET", ":scheme", "http", ":path", "/", "accept", "*/*",
                "host", "example.org");
        assertThat(fields(r)).containsExactly("accept: */*", "host: example.org");
    }

    @Test
    void connectTargetsTheAuthority() throws Exception {
        RequestHead r = translate(":method", "CONNECT", ":authority", "example.org:443");
        assertThat(r.target()).isEqualTo("example.org:443");
        assertThat(fields(r)).containsExactly("host: example.org:443");
    }

    @Test
    void invalidOrRepeatedAuthorityIsMalformed() {
        assertThatThrownBy(() -> translate(":method", "GET", ":scheme", "http", ":path", "/", ":authority", "u@h"))
                .isInstanceOf(Http2Exception.class).hasMessageContaining("invalid :authority");
        assertThatThrownBy(() -> translate(":method", "GET", ":scheme", "http", ":path", "/", ":authority", "a",
                ":authority", "a"))
                .isInstanceOf(Http2Exception.class).hasMessageContaining("repeated pseudo-field");
    }

    /** Issue 35 items 7-8: the bytes HTTP/1.1's request line refuses are refused in :path too (one shared check). */
    @Test
    void aPathWithBytesARequestLineCannotCarryIsMalformed() {
        for (String path : List.of("/a b", "/a\tb", "/a\u007fb", "/caf\u00c3\u00a9", "/x\u0001")) {
            assertThatThrownBy(() -> translate(":method", "GET", ":scheme", "http", ":path", path,
                    ":authority", "a.org"))
                    .as("%s", path.chars().mapToObj(c -> Integer.toHexString(c)).toList())
                    .isInstanceOf(Http2Exception.class).hasMessageContaining("in :path (RFC 9112 §3.2)");
        }
    }

    @Test
    void aPathOfVisibleAsciiPasses() throws Exception {
        RequestHead r = translate(":method", "GET", ":scheme", "http", ":path", "/a%20b/~!$&'()*+,;=:@?q=[x]|{}^`",
                ":authority", "a.org");
        assertThat(r.target()).isEqualTo("/a%20b/~!$&'()*+,;=:@?q=[x]|{}^`");
    }

    /** Issue 35 (found beside item 7): :authority and a stand-in Host follow HTTP/1.1's Host rule too. */
    @Test
    void anAuthorityHttp1WouldRefuseAsHostIsMalformed() {
        for (String authority : List.of("a b", "a\tb", "evil.test/x", "caf\u00c3\u00a9.test", "a.test:8o")) {
            assertThatThrownBy(() -> translate(":method", "GET", ":scheme", "http", ":path", "/",
                    ":authority", authority))
                    .as(authority).isInstanceOf(Http2Exception.class).hasMessageContaining("invalid :authority");
        }
        assertThatThrownBy(() -> translate(":method", "GET", ":scheme", "http", ":path", "/", "host", "a b"))
                .isInstanceOf(Http2Exception.class).hasMessageContaining("invalid Host");
        assertThatThrownBy(() -> translate(":method", "GET", ":scheme", "http", ":path", "/", "host", "a.test",
                "host", "b.test"))
                .isInstanceOf(Http2Exception.class).hasMessageContaining("repeated or invalid Host");
    }

    @Test
    void ordinaryAuthoritiesPass() throws Exception {
        for (String authority : List.of("example.org", "example.org:8443", "127.0.0.1:80", "[::1]:443",
                "xn--caf-dma.test")) {
            assertThat(translate(":method", "GET", ":scheme", "http", ":path", "/", ":authority", authority)
                    .headers().first("host")).isEqualTo(authority);
        }
    }

    @Test
    void aMethodIsATokenInAnyCase() throws Exception {
        for (String method : List.of("GET", "PROPFIND", "m-search", "Patch")) {
            assertThat(translate(":method", method, ":scheme", "http", ":path", "/", ":authority", "a.test").method())
                    .isEqualTo(method);
        }
    }

    @Test
    void aMethodThatIsNoTokenIsMalformed() {
        // U+212A (Kelvin sign) lower-cases to an ASCII 'k': only the method as sent may be checked
        for (String method : List.of("GE T", "G\u212AT", "GET(", "\u00e9")) {
            assertThatThrownBy(() -> translate(":method", method, ":scheme", "http", ":path", "/", ":authority",
                    "a.test")).isInstanceOf(Http2Exception.class).hasMessageContaining("invalid :method");
        }
    }
}
