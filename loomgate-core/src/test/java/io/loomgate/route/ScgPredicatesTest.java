package io.loomgate.route;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.loomgate.http.RequestHead;
import java.net.InetAddress;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The predicates issue 37 added for Spring Cloud Gateway's set: After, Before, Between, Cookie, XForwardedRemoteAddr. */
class ScgPredicatesTest {
    /** SCG's documented example times: 2017-01-20T17:42:47.789-07:00[America/Denver] and a day later. */
    private static final String T1 = "2017-01-20T17:42:47.789-07:00[America/Denver]";
    private static final String T2 = "2017-01-21T17:42:47.789-07:00[America/Denver]";
    private static final Instant I1 = Instant.parse("2017-01-21T00:42:47.789Z");

    private static boolean test(RoutePredicate p, RequestHead request) {
        return p.test(Requests.context(request));
    }

    private static boolean at(TimeWindowPredicate p, Instant now) {
        return new TimeWindowPredicate(p.after(), p.before(), Clock.fixed(now, ZoneOffset.UTC))
                .test(Requests.context(Requests.get("/")));
    }

    @Test
    void afterBeforeAndBetweenParseScgsZonedDateTimeAndCompareStrictly() {
        var after = (TimeWindowPredicate) TimeWindowPredicate.AFTER.create(Map.of("datetime", T1));
        assertThat(after.after()).isEqualTo(I1);
        assertThat(at(after, I1)).isFalse();
        assertThat(at(after, I1.plusMillis(1))).isTrue();
        assertThat(test(after, Requests.get("/"))).isTrue(); // the real clock: 2017 is past

        var before = (TimeWindowPredicate) TimeWindowPredicate.BEFORE.create(Map.of("datetime", T1));
        assertThat(at(before, I1.minusMillis(1))).isTrue();
        assertThat(at(before, I1)).isFalse();
        assertThat(test(before, Requests.get("/"))).isFalse();

        var between = (TimeWindowPredicate) TimeWindowPredicate.BETWEEN.create(Map.of("datetime1", T1,
                "datetime2", T2));
        assertThat(at(between, I1)).isFalse();
        assertThat(at(between, I1.plusSeconds(3600))).isTrue();
        assertThat(at(between, I1.plusSeconds(86_400))).isFalse();
    }

    @Test
    void timesAreEpochMillisecondsOrZonedAndAnythingElseIsRefused() {
        assertThat(TimeWindowPredicate.parse("datetime", "1484959367789")).isEqualTo(I1);
        assertThat(TimeWindowPredicate.parse("datetime", "2017-01-21T00:42:47.789Z")).isEqualTo(I1);
        assertThatThrownBy(() -> TimeWindowPredicate.AFTER.create(Map.of("datetime", "2017-01-20")))
                .hasMessage("datetime: expected a zoned date-time like 2017-01-20T17:42:47.789-07:00[America/Denver] "
                        + "or epoch milliseconds, got '2017-01-20'");
        assertThatThrownBy(() -> TimeWindowPredicate.BETWEEN.create(Map.of("datetime1", T2, "datetime2", T1)))
                .hasMessage("datetime1 (2017-01-22T00:42:47.789Z) must be before datetime2 (2017-01-21T00:42:47.789Z)");
    }

    @Test
    void cookieMatchesTheNamedCookiesValueWhole() {
        RoutePredicate p = CookiePredicate.FACTORY.create(Map.of("name", "chocolate", "regexp", "ch.p"));
        assertThat(test(p, Requests.get("/", "Cookie", "chocolate=chip"))).isTrue();
        assertThat(test(p, Requests.get("/", "Cookie", "a=1; chocolate=chap; b=2"))).isTrue();
        assertThat(test(p, Requests.get("/", "Cookie", "a=1", "Cookie", "chocolate=chop"))).isTrue();
        assertThat(test(p, Requests.get("/", "Cookie", "chocolate=\"chip\""))).isTrue();
        assertThat(test(p, Requests.get("/", "Cookie", "chocolate=chips"))).isFalse();
        assertThat(test(p, Requests.get("/", "Cookie", "Chocolate=chip"))).isFalse();
        assertThat(test(p, Requests.get("/", "Cookie", "xchocolate=chip"))).isFalse();
        assertThat(test(p, Requests.get("/"))).isFalse();
        assertThatThrownBy(() -> CookiePredicate.FACTORY.create(Map.of("name", "session")))
                .hasMessage("missing argument 'regexp' (Spring Cloud Gateway's Cookie without one matches nothing); "
                        + "to test that the cookie is present write Cookie=NAME, .*");
        RoutePredicate present = CookiePredicate.FACTORY.create(Map.of("name", "session", "regexp", ".*"));
        assertThat(test(present, Requests.get("/", "Cookie", "session="))).isTrue();
        assertThat(test(present, Requests.get("/", "Cookie", "other=1"))).isFalse();
        assertThatThrownBy(() -> CookiePredicate.FACTORY.create(Map.of("name", "a b")))
                .hasMessage("name: 'a b' is not a valid cookie name");
    }

    @Test
    void xForwardedRemoteAddrTakesTheEntryMaxTrustedIndexFromTheRight() throws Exception {
        // Each list ends with the peer the gateway appended before routing (127.0.0.1), which the predicate leaves out.
        RoutePredicate one = XForwardedRemoteAddrPredicate.FACTORY.create(Map.of("sources", "192.168.1.1/24"));
        assertThat(test(one, Requests.get("/", "X-Forwarded-For", "10.0.0.1, 192.168.1.10, 127.0.0.1"))).isTrue();
        assertThat(test(one, Requests.get("/", "X-Forwarded-For", "192.168.1.10, 10.0.0.1, 127.0.0.1"))).isFalse();
        RoutePredicate two = XForwardedRemoteAddrPredicate.FACTORY.create(Map.of("sources", "192.168.1.1/24",
                "maxTrustedIndex", "2"));
        assertThat(test(two, Requests.get("/", "X-Forwarded-For", "192.168.1.10, 10.0.0.1, 127.0.0.1"))).isTrue();
        assertThat(test(two, Requests.get("/", "X-Forwarded-For", "192.168.1.10, 127.0.0.1"))).isTrue(); // shorter: leftmost
        assertThat(test(two, Requests.get("/", "X-Forwarded-For", "not-an-ip, 10.0.0.1, 127.0.0.1"))).isFalse();
        assertThatThrownBy(() -> XForwardedRemoteAddrPredicate.FACTORY.create(Map.of("sources", "10.0.0.0/8",
                "maxTrustedIndex", "0"))).hasMessage("maxTrustedIndex: expected an integer >= 1, got '0'");
    }

    @Test
    void withoutOneXForwardedForFieldTheClientAddressDecides() throws Exception {
        RoutePredicate p = XForwardedRemoteAddrPredicate.FACTORY.create(Map.of("sources", "192.168.1.1/24"));
        InetAddress inside = InetAddress.getByName("192.168.1.7");
        assertThat(p.test(withClient(Requests.get("/"), inside))).isTrue();
        assertThat(p.test(withClient(Requests.get("/"), InetAddress.getByName("10.1.1.1")))).isFalse();
        // several fields: SCG distrusts them and falls back to the remote address
        assertThat(p.test(withClient(Requests.get("/", "X-Forwarded-For", "10.0.0.1", "X-Forwarded-For",
                "10.0.0.2"), inside))).isTrue();
    }

    private static PredicateContext withClient(RequestHead request, InetAddress client) {
        Requests.Context base = Requests.context(request);
        return new PredicateContext() {
            @Override
            public RequestHead request() {
                return base.request();
            }

            @Override
            public Map<String, String> variables() {
                return base.variables();
            }

            @Override
            public String routeId() {
                return base.routeId();
            }

            @Override
            public String weightedRoute(String group) {
                return null;
            }

            @Override
            public InetAddress clientIp() {
                return client;
            }
        };
    }
}
