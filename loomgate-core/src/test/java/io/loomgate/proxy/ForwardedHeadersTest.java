package io.loomgate.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.http.Cidr;
import io.loomgate.http.Headers;
import io.loomgate.http.IpLiteral;
import io.loomgate.http.RequestHead;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The forwarding fields as the origin gets them, field by field and in order: an untrusted client's own copies (in
 * any case, repeated) and the stripped fields go, the gateway's are appended; a trusted proxy's chain is kept and
 * extended. Pins what the one-pass removal of the untrusted path must keep doing.
 */
class ForwardedHeadersTest {
    private final ForwardedHeaders forwarded = new ForwardedHeaders(List.of(Cidr.parse("10.0.0.0/8")));
    private final InetSocketAddress local = new InetSocketAddress(IpLiteral.parse("127.0.0.1"), 8443);

    private static List<String> fields(Headers h) {
        List<String> out = new ArrayList<>();
        h.forEach((n, v) -> out.add(n + ": " + v));
        return out;
    }

    private static Headers clientSent() {
        return new Headers()
                .add("host", "api.example")
                .add("x-forwarded-for", "6.6.6.6")
                .add("Accept", "*/*")
                .add("X-FORWARDED-PROTO", "https")
                .add("x-real-ip", "6.6.6.6")
                .add("Forwarded", "for=6.6.6.6")
                .add("x-envoy-original-path", "/admin")
                .add("X-Forwarded-Host", "evil.example")
                .add("x-forwarded-port", "1")
                .add("X-Forwarded-Client-Cert", "Hash=forged")
                .add("Via", "1.1 client-side")
                .add("CDN-Loop", "edge; id=a")
                .add("X-Forwarded-For", "7.7.7.7")
                .add("user-agent", "t");
    }

    @Test
    void anUntrustedClientsForwardingAndStrippedFieldsAreReplacedByTheGatewaysOwn() {
        Headers h = clientSent();
        forwarded.apply(h, new InetSocketAddress(IpLiteral.parse("198.51.100.4"), 5000), local, "api.example");
        assertThat(fields(h)).containsExactly(
                "host: api.example",
                "Accept: */*",
                "Via: 1.1 client-side, 1.1 loomgate",
                "CDN-Loop: edge; id=a, " + forwarded.loopEntry(), // RFC 8586: kept from anyone, appended to
                "user-agent: t",
                "X-Forwarded-For: 198.51.100.4",
                "X-Forwarded-Proto: http",
                "X-Forwarded-Host: api.example",
                "X-Forwarded-Port: 8443",
                "Forwarded: for=198.51.100.4;proto=http;host=api.example");
    }

    @Test
    void aTrustedProxysChainIsExtendedAndOnlyItsClientCertificateGoes() {
        Headers h = clientSent();
        forwarded.apply(h, new InetSocketAddress(IpLiteral.parse("10.1.2.3"), 5000), local, null);
        assertThat(fields(h)).containsExactly(
                "host: api.example",
                "x-forwarded-for: 6.6.6.6, 7.7.7.7, 10.1.2.3",
                "Accept: */*",
                "X-FORWARDED-PROTO: https",
                "x-real-ip: 6.6.6.6",
                "Forwarded: for=6.6.6.6, for=10.1.2.3;proto=http",
                "x-envoy-original-path: /admin",
                "X-Forwarded-Host: evil.example",
                "x-forwarded-port: 1",
                "Via: 1.1 client-side, 1.1 loomgate",
                "CDN-Loop: edge; id=a, " + forwarded.loopEntry(),
                "user-agent: t");
    }

    @Test
    void withNoFieldsToRemoveTheGatewaysAreAppended() {
        Headers h = new Headers().add("accept", "x");
        forwarded.apply(h, new InetSocketAddress(IpLiteral.parse("2001:db8::1"), 5000), local, "h:8443");
        assertThat(fields(h)).containsExactly(
                "accept: x",
                "X-Forwarded-For: 2001:db8:0:0:0:0:0:1",
                "X-Forwarded-Proto: http",
                "X-Forwarded-Host: h:8443",
                "X-Forwarded-Port: 8443",
                "Forwarded: for=\"[2001:db8:0:0:0:0:0:1]\";proto=http;host=\"h:8443\"",
                "Via: 1.1 loomgate",
                "CDN-Loop: " + forwarded.loopEntry());
    }

    /**
     * A request carrying this instance's own CDN-Loop id came back through it (a loop, found at its first return),
     * in any of the field's lines or places; another instance's id, or none, is a count of Via entries as before.
     */
    @Test
    void aRequestCarryingThisInstancesOwnLoopIdIsRecognisedAndAnothersIsNot() {
        InetSocketAddress client = new InetSocketAddress(IpLiteral.parse("198.51.100.4"), 5000);
        ForwardedHeaders other = new ForwardedHeaders(List.of());
        assertThat(other.loopEntry()).matches("loomgate; id=[A-Za-z0-9_-]{16}").isNotEqualTo(forwarded.loopEntry());
        Headers h = new Headers().add("Via", "1.1 loomgate").add("CDN-Loop", other.loopEntry());
        assertThat(apply(h, client)).isEqualTo(1);
        assertThat(h.all("CDN-Loop")).containsExactly(other.loopEntry() + ", " + forwarded.loopEntry());
        assertThat(apply(h, client)).as("its second pass").isEqualTo(ForwardedHeaders.RETURNED_HERE);
        Headers split = new Headers().add("CDN-Loop", "edge").add("cdn-loop", forwarded.loopEntry() + ";x=1");
        assertThat(apply(split, client)).isEqualTo(ForwardedHeaders.RETURNED_HERE);
        assertThat(apply(new Headers(), client)).isZero();
    }

    private int apply(Headers h, InetSocketAddress client) {
        return forwarded.apply(h, client, client.getAddress().getHostAddress(), local, "h", null, "HTTP/1.1");
    }

    @Test
    void eachRequestGetsThePortOfTheListenerItCameTo() {
        // The port's text is kept from one request to the next: two listeners in turn must each get their own.
        InetSocketAddress client = new InetSocketAddress(IpLiteral.parse("198.51.100.4"), 5000);
        for (int port : new int[] {8443, 8080, 8080, 8443}) {
            Headers h = new Headers().add("host", "api.example");
            forwarded.apply(h, client, new InetSocketAddress(IpLiteral.parse("127.0.0.1"), port), null);
            assertThat(h.all("X-Forwarded-Port")).containsExactly(Integer.toString(port));
            assertThat(h.first("Forwarded")).isEqualTo("for=198.51.100.4;proto=http");
        }
    }
    /** The element is kept from one request to the next only while client, scheme and host are the same. */
    @Test
    void eachRequestGetsTheForwardedElementOfItsOwnClientAndHost() {
        record Case(String ip, String host, String element) {
        }
        List<Case> cases = List.of(
                new Case("198.51.100.4", "api.example", "for=198.51.100.4;proto=http;host=api.example"),
                new Case("198.51.100.4", "api.example", "for=198.51.100.4;proto=http;host=api.example"),
                new Case("198.51.100.5", "api.example", "for=198.51.100.5;proto=http;host=api.example"),
                new Case("198.51.100.5", "other.example", "for=198.51.100.5;proto=http;host=other.example"),
                new Case("198.51.100.5", null, "for=198.51.100.5;proto=http"),
                new Case("2001:db8::1", "api.example", "for=\"[2001:db8:0:0:0:0:0:1]\";proto=http;host=api.example"),
                new Case("198.51.100.4", "api.example", "for=198.51.100.4;proto=http;host=api.example"));
        String previous = null;
        for (Case c : cases) {
            Headers h = new Headers();
            forwarded.apply(h, new InetSocketAddress(IpLiteral.parse(c.ip()), 5000), local, c.host());
            assertThat(h.first("Forwarded")).isEqualTo(c.element());
            if (c.element().equals(previous)) {
                assertThat(h.first("Forwarded")).isSameAs(previous); // a repeat makes no new string
            }
            previous = h.first("Forwarded");
        }
    }

    /**
     * The parsers leave room in a request's list for what the proxy adds ({@link RequestHead#PROXY_ROOM}): a list
     * that outgrows it doubles both its arrays on every request (~170 B at W8). Session 60 found CDN-Loop had made it
     * seven while the room was six. The most a request without a client certificate gets: none of the fields of its
     * own, a host, from an untrusted client and from a trusted proxy, over either protocol.
     */
    @Test
    void whatTheProxyAddsFitsTheRoomTheParsersLeave() {
        for (String clientIp : List.of("198.51.100.4", "10.1.2.3")) {
            for (String version : new String[] {"HTTP/1.1", "HTTP/2.0"}) {
                Headers h = new Headers().add("host", "api.example").add("user-agent", "t");
                int own = h.size();
                InetSocketAddress client = new InetSocketAddress(IpLiteral.parse(clientIp), 5000);
                forwarded.apply(h, client, clientIp, local, "api.example", null, version);
                assertThat(h.size() - own).as("fields added for %s over %s", clientIp, version)
                        .isLessThanOrEqualTo(RequestHead.PROXY_ROOM);
            }
        }
    }
}
