package io.loomgate.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.http.Cidr;
import io.loomgate.http.Headers;
import io.loomgate.http.IpLiteral;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The client behind the peer: X-Forwarded-For walked from the right past trusted proxies, never a DNS name. */
class ClientAddressTest {
    private final ForwardedHeaders forwarded = new ForwardedHeaders(List.of(Cidr.parse("10.0.0.0/8"),
            Cidr.parse("127.0.0.1")));

    private static InetAddress ip(String s) {
        return IpLiteral.parse(s);
    }

    private InetAddress client(String peer, String... xff) {
        Headers h = new Headers();
        for (String v : xff) {
            h.add("X-Forwarded-For", v);
        }
        return forwarded.clientIp(ip(peer), h);
    }

    @Test
    void anUntrustedPeerIsTheClientWhateverItWrites() {
        assertThat(client("198.51.100.4", "203.0.113.7")).isEqualTo(ip("198.51.100.4"));
    }

    @Test
    void behindTrustedPeersTheNearestUntrustedHopIsTheClient() {
        assertThat(client("127.0.0.1", "203.0.113.7")).isEqualTo(ip("203.0.113.7"));
        assertThat(client("127.0.0.1", "6.6.6.6, 203.0.113.7, 10.2.3.4")).isEqualTo(ip("203.0.113.7"));
        assertThat(client("127.0.0.1", "6.6.6.6", "203.0.113.7, 10.2.3.4")).isEqualTo(ip("203.0.113.7"));
        assertThat(client("127.0.0.1", "10.9.9.9")).isEqualTo(ip("10.9.9.9")); // all trusted: the farthest
        assertThat(client("127.0.0.1")).isEqualTo(ip("127.0.0.1"));
        assertThat(client("127.0.0.1", "[2001:db8::1]:443")).isEqualTo(ip("2001:db8::1"));
        assertThat(client("127.0.0.1", "203.0.113.7:5000")).isEqualTo(ip("203.0.113.7"));
    }

    @Test
    void aHopThatIsNotAnIpLiteralMakesTheClientUnknown() {
        assertThat(client("127.0.0.1", "unknown")).isNull();
        assertThat(client("127.0.0.1", "evil.example.com, 10.1.1.1")).isNull();
        assertThat(client("127.0.0.1", "999.1.1.1")).isNull();
    }

    @Test
    void theAnswerIsTheSameBeforeAndAfterTheForwardingFieldsAreAppended() {
        Headers h = new Headers().add("X-Forwarded-For", "203.0.113.7, 10.0.0.1");
        InetAddress before = forwarded.clientIp(ip("127.0.0.1"), h);
        forwarded.apply(h, new InetSocketAddress(ip("127.0.0.1"), 5000), new InetSocketAddress(ip("127.0.0.1"), 80),
                "gw");
        assertThat(forwarded.clientIp(ip("127.0.0.1"), h)).isEqualTo(before).isEqualTo(ip("203.0.113.7"));
    }

    @Test
    void ipLiteralsParseWithoutLookupsAndRefuseNames() {
        assertThat(IpLiteral.parse("1.2.3.4")).isEqualTo(ip("1.2.3.4"));
        assertThat(IpLiteral.parse("::1")).isNotNull();
        assertThat(IpLiteral.parse("localhost")).isNull();
        assertThat(IpLiteral.parse("1.2.3")).isNull();
        assertThat(IpLiteral.parse("1.2.3.4.5")).isNull();
        assertThat(IpLiteral.parse("256.1.1.1")).isNull();
        assertThat(IpLiteral.parse("[::1")).isNull();
        assertThat(IpLiteral.parse("")).isNull();
        assertThat(IpLiteral.parse("fe80::1%eth0")).isNull();
    }
}
