package io.loomgate.filter;

import io.loomgate.testkit.TestExchange;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** SetStatus rewrites the origin's status; RedirectTo answers locally and never reaches the origin. */
class StatusFiltersTest {

    @Test
    void setStatusTakesACodeOrASpringName() throws IOException {
        for (String written : List.of("404", "NOT_FOUND", "not_found")) {
            TestExchange ex = TestExchange.get("/");
            FilterChains.run(List.of(SetStatusFilter.FACTORY.create(Map.of("status", written))), ex,
                    TestExchange.origin());
            assertThat(ex.response().status()).isEqualTo(404);
            assertThat(ex.response().reason()).isEqualTo("Not Found");
            assertThat(ex.response().headers().first("X-Origin")).isEqualTo("yes");
        }
    }

    @Test
    void setStatusRefusesUnknownAndBodylessStatuses() {
        assertThatThrownBy(() -> SetStatusFilter.FACTORY.create(Map.of("status", "NOT_FUND")))
                .hasMessage("status: expected a status code 100..599 or a name like NOT_FOUND, got 'NOT_FUND'");
        assertThatThrownBy(() -> SetStatusFilter.FACTORY.create(Map.of("status", "700")))
                .hasMessage("status: expected a status code 100..599 or a name like NOT_FOUND, got '700'");
        assertThatThrownBy(() -> SetStatusFilter.FACTORY.create(Map.of("status", "204")))
                .hasMessageStartingWith("status: 204 cannot be set on a forwarded response");
    }

    @Test
    void redirectToRepliesLocallyWithLocation() throws IOException {
        AtomicInteger originCalls = new AtomicInteger();
        TestExchange ex = TestExchange.get("/old?a=1");
        FilterChains.run(List.of(RedirectToFilter.FACTORY.create(Map.of("status", "302", "url",
                "https://example.org/new"))), ex, exchange -> originCalls.incrementAndGet());
        assertThat(originCalls).hasValue(0);
        assertThat(ex.localReplies).isEqualTo(1);
        assertThat(ex.response().status()).isEqualTo(302);
        assertThat(ex.response().headers().all("Location")).containsExactly("https://example.org/new");
        assertThat(ex.localBody).isEmpty();
    }

    @Test
    void redirectToCanCarryTheQueryAlong() throws IOException {
        TestExchange ex = TestExchange.get("/old?a=1&b=%20");
        FilterChains.run(List.of(RedirectToFilter.FACTORY.create(Map.of("status", "MOVED_PERMANENTLY", "url",
                "/new?x=y", "includeRequestParams", "true"))), ex, TestExchange.origin());
        assertThat(ex.response().status()).isEqualTo(301);
        assertThat(ex.response().headers().first("Location")).isEqualTo("/new?x=y&a=1&b=%20");
    }

    @Test
    void redirectToRefusesNonRedirectStatusesAndBadUrls() {
        assertThatThrownBy(() -> RedirectToFilter.FACTORY.create(Map.of("status", "200", "url", "/x")))
                .hasMessage("status: expected a redirect status (300, 301, 302, 303, 307, 308), got 200");
        assertThatThrownBy(() -> RedirectToFilter.FACTORY.create(Map.of("status", "302", "url", "/x\r\nSet-Cookie: a")))
                .hasMessage("url: header value must not contain CR, LF or NUL");
        assertThatThrownBy(() -> RedirectToFilter.FACTORY.create(Map.of("status", "302")))
                .hasMessage("missing argument 'url'");
    }
}
