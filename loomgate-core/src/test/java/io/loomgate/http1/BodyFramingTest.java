package io.loomgate.http1;

import static io.loomgate.http1.Wire.lines;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.loomgate.http.Headers;
import io.loomgate.http.RequestHead;
import io.loomgate.http.ResponseHead;
import java.io.IOException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The framing decision of RFC 9112 §6.3, for requests and for responses to each kind of request. */
class BodyFramingTest {

    private static RequestHead request(String version, String... fields) throws IOException {
        String[] all = new String[fields.length + 3];
        all[0] = "POST / " + version;
        all[1] = "Host: h";
        System.arraycopy(fields, 0, all, 2, fields.length);
        all[all.length - 1] = "";
        return Wire.input(lines(all)).readRequestHead();
    }

    private static ResponseHead response(int status, String... fields) {
        Headers h = new Headers();
        for (String f : fields) {
            int colon = f.indexOf(':');
            h.add(f.substring(0, colon), f.substring(colon + 1).trim());
        }
        return new ResponseHead("HTTP/1.1", status, "", h);
    }

    @Test
    void requestWithNeitherFieldHasNoBody() throws IOException {
        assertThat(BodyFraming.ofRequest(request("HTTP/1.1"))).isEqualTo(BodyFraming.NONE);
    }

    @Test
    void requestContentLengthIsFixed() throws IOException {
        assertThat(BodyFraming.ofRequest(request("HTTP/1.1", "Content-Length: 42")))
                .isEqualTo(new BodyFraming.Fixed(42));
        assertThat(BodyFraming.ofRequest(request("HTTP/1.1", "Content-Length: 7, 7", "content-length: 7")))
                .isEqualTo(new BodyFraming.Fixed(7));
        assertThat(BodyFraming.ofRequest(request("HTTP/1.0", "Content-Length: 0")))
                .isEqualTo(new BodyFraming.Fixed(0));
    }

    @Test
    void requestChunkedIsChunked() throws IOException {
        assertThat(BodyFraming.ofRequest(request("HTTP/1.1", "Transfer-Encoding: chunked")))
                .isEqualTo(BodyFraming.CHUNKED);
        assertThat(BodyFraming.ofRequest(request("HTTP/1.1", "Transfer-Encoding: ,CHUNKED ,")))
                .isEqualTo(BodyFraming.CHUNKED);
    }

    @ParameterizedTest(name = "{0}: {1}")
    @CsvSource(delimiter = '|', value = {
        "400|Transfer-Encoding: chunked|Content-Length: 5|HTTP/1.1",
        "400|Content-Length: 5|Transfer-Encoding: chunked|HTTP/1.1",
        "400|Transfer-Encoding: chunked||HTTP/1.0",
        "400|Transfer-Encoding: gzip||HTTP/1.1",
        "400|Transfer-Encoding: chunked, gzip||HTTP/1.1",
        "400|Transfer-Encoding: chunked|Transfer-Encoding: gzip|HTTP/1.1",
        "400|Transfer-Encoding: chunked, chunked||HTTP/1.1",
        "400|Transfer-Encoding: chunked|Transfer-Encoding: chunked|HTTP/1.1",
        "400|Transfer-Encoding: chunked;x=1||HTTP/1.1",
        "400|Transfer-Encoding: ||HTTP/1.1",
        "400|Transfer-Encoding: chun ked||HTTP/1.1",
        "400|Transfer-Encoding: \"chunked\"||HTTP/1.1",
        "501|Transfer-Encoding: gzip, chunked||HTTP/1.1",
        "501|Transfer-Encoding: gzip|Transfer-Encoding: chunked|HTTP/1.1",
        "501|Transfer-Encoding: identity, chunked||HTTP/1.1",
        "400|Content-Length: -1||HTTP/1.1",
        "400|Content-Length: +5||HTTP/1.1",
        "400|Content-Length: 5 5||HTTP/1.1",
        "400|Content-Length: 5,||HTTP/1.1",
        "400|Content-Length: 0x10||HTTP/1.1",
        "400|Content-Length: 5|Content-Length: 6|HTTP/1.1",
        "400|Content-Length: 5, 6||HTTP/1.1",
        "400|Content-Length: 1234567890123456789||HTTP/1.1",
        "400|Content-Length:||HTTP/1.1",
        "400|Content-Length: 1.0||HTTP/1.1",
    })
    void refusesAmbiguousRequestFraming(int status, String field1, String field2, String version) throws IOException {
        RequestHead head = field2 == null ? request(version, field1) : request(version, field1, field2);
        assertThatThrownBy(() -> BodyFraming.ofRequest(head))
                .isInstanceOfSatisfying(HttpParseException.class, e -> assertThat(e.status()).isEqualTo(status));
    }

    @Test
    void eighteenDigitLengthIsAccepted() throws IOException {
        assertThat(BodyFraming.ofRequest(request("HTTP/1.1", "Content-Length: 999999999999999999")))
                .isEqualTo(new BodyFraming.Fixed(999_999_999_999_999_999L));
    }

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource({"HEAD,200", "GET,100", "GET,101", "GET,199", "GET,204", "GET,304", "CONNECT,200", "CONNECT,299"})
    void responsesWithoutBodyIgnoreTheirLengthFields(String method, int status) throws IOException {
        assertThat(BodyFraming.ofResponse(method, response(status, "Content-Length: 10")))
                .isEqualTo(BodyFraming.NONE);
        assertThat(BodyFraming.ofResponse(method, response(status, "Transfer-Encoding: chunked")))
                .isEqualTo(BodyFraming.NONE);
    }

    @Test
    void responseFramings() throws IOException {
        assertThat(BodyFraming.ofResponse("GET", response(200, "Content-Length: 10")))
                .isEqualTo(new BodyFraming.Fixed(10));
        assertThat(BodyFraming.ofResponse("CONNECT", response(407, "Content-Length: 3")))
                .isEqualTo(new BodyFraming.Fixed(3));
        assertThat(BodyFraming.ofResponse("GET", response(200, "Transfer-Encoding: chunked")))
                .isEqualTo(BodyFraming.CHUNKED);
        // Codings other than chunked are not decoded, and re-framing would drop their label: 502, as nginx does.
        assertThatThrownBy(() -> BodyFraming.ofResponse("GET", response(200, "Transfer-Encoding: gzip, chunked")))
                .isInstanceOfSatisfying(HttpParseException.class, e -> assertThat(e.status()).isEqualTo(502))
                .hasMessageContaining("gzip, chunked");
        assertThatThrownBy(() -> BodyFraming.ofResponse("GET", response(200, "Transfer-Encoding: gzip")))
                .isInstanceOfSatisfying(HttpParseException.class, e -> assertThat(e.status()).isEqualTo(502));
        assertThat(BodyFraming.ofResponse("GET", response(200))).isEqualTo(BodyFraming.UNTIL_CLOSE);
        assertThat(BodyFraming.ofResponse("POST", response(500, "Content-Length: 0")))
                .isEqualTo(new BodyFraming.Fixed(0));
    }

    @ParameterizedTest(name = "{0} / {1}")
    @CsvSource(delimiter = '|', value = {
        "Transfer-Encoding: chunked|Content-Length: 5",
        "Content-Length: 5|Content-Length: 6",
        "Content-Length: -5|",
        "Content-Length: 5a|",
        "Transfer-Encoding: chunked, chunked|",
    })
    void malformedResponseFramingIsBadGateway(String field1, String field2) {
        ResponseHead head = field2 == null ? response(200, field1) : response(200, field1, field2);
        assertThatThrownBy(() -> BodyFraming.ofResponse("GET", head))
                .isInstanceOfSatisfying(HttpParseException.class, e -> assertThat(e.status()).isEqualTo(502));
    }

    @Test
    void transferEncodingInAnHttp10ResponseIsBadGateway() {
        ResponseHead head = new ResponseHead("HTTP/1.0", 200, "OK",
                new Headers().add("Transfer-Encoding", "chunked"));
        assertThatThrownBy(() -> BodyFraming.ofResponse("GET", head))
                .isInstanceOfSatisfying(HttpParseException.class, e -> assertThat(e.status()).isEqualTo(502));
    }
}
