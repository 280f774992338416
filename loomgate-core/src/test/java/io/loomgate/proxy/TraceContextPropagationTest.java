package io.loomgate.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.http.Headers;
import org.junit.jupiter.api.Test;

/** traceparent as sent upstream: a valid incoming trace goes on (id and flags), anything else starts a new one. */
class TraceContextPropagationTest {
    private static final String FORMAT = "00-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}";

    @Test
    void aValidIncomingTraceKeepsItsIdAndFlagsWithANewParentId() {
        String incoming = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00";
        Headers h = new Headers().add("traceparent", incoming).add("tracestate", "k=v");

        String returned = TraceContext.propagate(h);

        String sent = h.first("traceparent");
        assertThat(returned).isEqualTo(sent);
        String traceId = TraceContext.traceId(sent);
        assertThat(traceId).isEqualTo("4bf92f3577b34da6a3ce929d0e0e4736");
        assertThat(TraceContext.spanId(sent)).matches("[0-9a-f]{16}").isEqualTo(sent.substring(36, 52));
        assertThat(sent).matches(FORMAT).startsWith("00-" + traceId + "-").endsWith("-00")
                .doesNotContain("00f067aa0ba902b7");
        assertThat(h.first("tracestate")).isEqualTo("k=v");
    }

    @Test
    void noOrAnInvalidIncomingTraceStartsANewSampledOneAndDropsItsTracestate() {
        Headers none = new Headers();
        String id = TraceContext.traceId(TraceContext.propagate(none));
        assertThat(none.first("traceparent")).matches(FORMAT)
                .startsWith("00-" + id + "-").endsWith("-01");

        Headers bad = new Headers().add("traceparent", "00-zz-bad").add("tracestate", "k=v");
        String fresh = TraceContext.traceId(TraceContext.propagate(bad));
        assertThat(bad.first("traceparent")).matches(FORMAT).startsWith("00-" + fresh + "-").endsWith("-01");
        assertThat(bad.contains("tracestate")).isFalse();
    }

    @Test
    void everyCallDrawsNewIds() {
        Headers a = new Headers();
        Headers b = new Headers();
        assertThat(TraceContext.propagate(a)).isNotEqualTo(TraceContext.propagate(b));
        assertThat(a.first("traceparent").substring(36, 52)).isNotEqualTo(b.first("traceparent").substring(36, 52));
    }
}
