package io.loomgate.filter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.loomgate.extension.ArgumentException;
import io.loomgate.http.ResponseHead;
import io.loomgate.testkit.TestExchange;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The cache's rules with a clock the test moves (time-to-live, max-age counting down) and the proxy's part played by
 * the test (the body through the tap, whole or cut). Through the gateway: LocalResponseCacheTest in the cli module.
 */
class LocalResponseCacheFilterTest {
    private final AtomicLong now = new AtomicLong(1_000_000);
    private final AtomicInteger originCalls = new AtomicInteger();
    private final LocalResponseCacheFilter filter = new LocalResponseCacheFilter(
            new ResponseCache(1024 * 1024, 600_000), 1000, now::get);

    /** One request through the filter; the origin answers {@code body} with these fields, relayed whole or cut. */
    private TestExchange get(String target, String body, boolean whole, String... fields) throws Exception {
        TestExchange x = TestExchange.get(target);
        filter.filter(x, e -> {
            originCalls.incrementAndGet();
            ResponseHead head = ResponseHead.of(200);
            head.headers().add("Content-Length", Integer.toString(body.length()));
            for (int i = 0; i < fields.length; i += 2) {
                head.headers().add(fields[i], fields[i + 1]);
            }
            e.setResponse(head);
        });
        if (x.localReplies == 0 && x.tap != null) {
            byte[] b = body.getBytes(StandardCharsets.UTF_8);
            x.tap.bytes(b, 0, whole ? b.length : b.length / 2);
            if (whole) {
                x.tap.completed();
            }
        }
        return x;
    }

    @Test
    void aHitCountsItsAgeAndTheSecondsLeftUntilTheTimeToLiveEndsThenGoesToTheOrigin() throws Exception {
        TestExchange first = get("/a", "hello", true, "Cache-Control", "max-age=60");
        assertThat(first.response().headers().first("Cache-Control")).isEqualTo("max-age=600");
        now.addAndGet(100_000);
        TestExchange hit = get("/a", "ignored", true);
        assertThat(hit.localReplies).isEqualTo(1);
        assertThat(new String(hit.localBody, StandardCharsets.UTF_8)).isEqualTo("hello");
        assertThat(hit.response().headers().first("Age")).isEqualTo("100");
        assertThat(hit.response().headers().first("Cache-Control")).isEqualTo("max-age=500");
        assertThat(hit.response().headers().contains("Content-Length")).isFalse(); // the reply's framing is its own
        assertThat(hit.attributes()).containsEntry(LocalResponseCacheFilter.OUTCOME, "hit");
        now.addAndGet(500_000); // 600 s after it was stored: expired
        TestExchange after = get("/a", "new", true);
        assertThat(after.localReplies).isZero();
        assertThat(originCalls).hasValue(2);
    }

    @Test
    void aBodyThatDidNotEndWholeOrIsOverTheEntryLimitIsNotKept() throws Exception {
        get("/cut", "abcdef", false);
        assertThat(get("/cut", "abcdef", true).localReplies).isZero();
        get("/large", "x".repeat(1001), true);
        assertThat(get("/large", "x", true).localReplies).isZero();
        assertThat(originCalls).hasValue(4);
    }

    @Test
    void rangeIsPartOfTheKeySoAPartialAnswerNeverServesAWholeRequest() throws Exception {
        TestExchange ranged = TestExchange.get("/r");
        ranged.request().headers().add("Range", "bytes=0-1");
        filter.filter(ranged, e -> {
            originCalls.incrementAndGet();
            ResponseHead head = ResponseHead.of(206);
            head.headers().add("Content-Length", "2");
            e.setResponse(head);
        });
        ranged.tap.bytes("ab".getBytes(StandardCharsets.UTF_8), 0, 2);
        ranged.tap.completed();
        assertThat(get("/r", "abcd", true).localReplies).isZero();
        assertThat(originCalls).hasValue(2);
    }

    @Test
    void sizesAreCheckedWhenTheRouteIsBuilt() {
        assertThat(LocalResponseCacheFilter.FACTORY.create(Map.of("timeToLive", "30m", "size", "500MB")))
                .isInstanceOf(LocalResponseCacheFilter.class);
        assertThatThrownBy(() -> LocalResponseCacheFilter.FACTORY.create(Map.of("size", "0")))
                .isInstanceOf(ArgumentException.class).hasMessageContaining("size");
        assertThatThrownBy(() -> LocalResponseCacheFilter.FACTORY.create(Map.of("size", "1MB",
                "max-entry-size", "2MB"))).isInstanceOf(ArgumentException.class)
                .hasMessageContaining("at most size");
        assertThatThrownBy(() -> LocalResponseCacheFilter.FACTORY.create(Map.of("timeToLive", "soon")))
                .isInstanceOf(ArgumentException.class).hasMessageContaining("timeToLive");
    }
}
