package io.loomgate.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.http.Headers;
import io.loomgate.http.RequestHead;
import io.loomgate.http1.HttpOutput;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * traceparent as sent upstream: a valid incoming trace goes on (id and flags), anything else starts a new one; the
 * exchange has a span id of its own (the one logs and traces report), and each attempt sends a fresh one, its child.
 * What is sent is read from the request head as the HTTP/1.1 writer writes it, the context its generated field.
 */
class TraceContextPropagationTest {
    private static final String FORMAT = "00-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}";
    private static final Pattern FIELD = Pattern.compile("(?i)(?:^|\n)traceparent: ([^\r\n]*)\r\n");

    /** The one traceparent of the head written with {@code t} as its generated field (the fields hold none). */
    private static String sent(Headers h, TraceContext t) {
        assertThat(h.contains("traceparent")).as("the client's traceparent left in the fields").isFalse();
        ByteArrayOutputStream wire = new ByteArrayOutputStream();
        HttpOutput out = new HttpOutput(wire, 1024);
        try {
            out.writeRequestHead(new RequestHead("GET", "/", "HTTP/1.1", h), t);
            out.flush();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        String head = wire.toString(StandardCharsets.ISO_8859_1);
        Matcher m = FIELD.matcher(head);
        assertThat(m.find()).as(head).isTrue();
        String value = m.group(1);
        assertThat(m.find()).as("a second traceparent in " + head).isFalse();
        assertThat(value).isEqualTo(t.traceparent());
        return value;
    }

    @Test
    void aValidIncomingTraceKeepsItsIdAndFlagsWithANewParentId() {
        String incoming = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00";
        Headers h = new Headers().add("traceparent", incoming).add("tracestate", "k=v");

        TraceContext t = TraceContext.start(h, ExchangeListener.NOOP);
        t.sendUpstream(h);

        String sent = sent(h, t);
        assertThat(t.traceId()).isEqualTo("4bf92f3577b34da6a3ce929d0e0e4736");
        assertThat(t.parentSpanId()).isEqualTo("00f067aa0ba902b7");
        assertThat(t.sampled()).isFalse();
        assertThat(sent).matches(FORMAT).startsWith("00-" + t.traceId() + "-").endsWith("-00")
                .doesNotContain("00f067aa0ba902b7").doesNotContain(t.spanId());
        assertThat(sent.substring(36, 52)).isEqualTo(t.attemptSpanId());
        assertThat(h.first("tracestate")).isEqualTo("k=v");
    }

    @Test
    void noOrAnInvalidIncomingTraceStartsANewSampledOneAndDropsItsTracestate() {
        Headers none = new Headers();
        TraceContext t = TraceContext.start(none, ExchangeListener.NOOP);
        t.sendUpstream(none);
        assertThat(t.parentSpanId()).isNull();
        assertThat(t.sampled()).isTrue();
        assertThat(sent(none, t)).matches(FORMAT)
                .startsWith("00-" + t.traceId() + "-").endsWith("-01");

        Headers bad = new Headers().add("traceparent", "00-zz-bad").add("tracestate", "k=v");
        TraceContext fresh = TraceContext.start(bad, ExchangeListener.NOOP);
        fresh.sendUpstream(bad);
        assertThat(sent(bad, fresh)).matches(FORMAT).startsWith("00-" + fresh.traceId() + "-")
                .endsWith("-01");
        assertThat(bad.contains("tracestate")).isFalse();
    }

    @Test
    void aNewTraceIsSampledAsTheListenersSay() {
        ExchangeListener tracer = new ExchangeListener() {
            @Override
            public boolean sampleNewTrace(String traceId) {
                return false;
            }
        };
        Headers h = new Headers();
        TraceContext t = TraceContext.start(h, ExchangeListener.composite(java.util.List.of(ExchangeListener.NOOP,
                tracer)));
        t.sendUpstream(h);
        assertThat(t.sampled()).isFalse();
        assertThat(sent(h, t)).endsWith("-00");
    }

    @Test
    void everyAttemptSendsANewSpanIdOfItsOwn() {
        Headers h = new Headers();
        TraceContext t = TraceContext.start(h, ExchangeListener.NOOP);
        t.sendUpstream(h);
        String first = sent(h, t);
        t.sendUpstream(h);
        String second = sent(h, t);
        assertThat(second.substring(0, 36)).isEqualTo(first.substring(0, 36));
        assertThat(second.substring(36, 52)).isNotEqualTo(first.substring(36, 52)).isNotEqualTo(t.spanId())
                .isEqualTo(t.attemptSpanId());
    }

    @Test
    void everyExchangeDrawsNewIds() {
        TraceContext a = TraceContext.start(new Headers(), ExchangeListener.NOOP);
        TraceContext b = TraceContext.start(new Headers(), ExchangeListener.NOOP);
        assertThat(a.traceId()).isNotEqualTo(b.traceId()).matches("[0-9a-f]{32}");
        assertThat(a.spanId()).isNotEqualTo(b.spanId()).matches("[0-9a-f]{16}");
    }

    /** The ids are kept as numbers: every flags byte and every digit goes out as it came in. */
    @Test
    void anIncomingTraceGoesOutDigitForDigitWithItsFlags() {
        for (String flags : java.util.List.of("00", "01", "02", "03", "ff", "a0")) {
            String trace = "f0e1d2c3b4a5968778695a4b3c2d1e0f";
            Headers h = new Headers().add("traceparent", "00-" + trace + "-ffffffffffffffff-" + flags);
            TraceContext t = TraceContext.start(h, ExchangeListener.NOOP);
            t.sendUpstream(h);
            assertThat(sent(h, t)).matches(FORMAT).startsWith("00-" + trace + "-").endsWith("-" + flags);
            assertThat(t.traceId()).isEqualTo(trace);
            assertThat(t.parentSpanId()).isEqualTo("ffffffffffffffff");
            assertThat(t.sampled()).isEqualTo((Integer.parseInt(flags, 16) & 1) == 1);
        }
    }

    /** A tracer's sampler is asked with the id the traceparent then carries; listeners that do not decide are not. */
    @Test
    void onlyAListenerThatDecidesIsAskedAndGetsTheIdSent() {
        java.util.List<String> asked = new java.util.ArrayList<>();
        ExchangeListener tracer = new ExchangeListener() {
            @Override
            public boolean sampleNewTrace(String traceId) {
                asked.add(traceId);
                return true;
            }
        };
        assertThat(ExchangeListener.NOOP.decidesSampling()).isFalse();
        assertThat(ExchangeListener.composite(java.util.List.of(ExchangeListener.NOOP, new ExchangeListener() {
        })).decidesSampling()).isFalse();
        ExchangeListener both = ExchangeListener.composite(java.util.List.of(ExchangeListener.NOOP, tracer));
        assertThat(both.decidesSampling()).isTrue();
        Headers h = new Headers();
        TraceContext t = TraceContext.start(h, both);
        t.sendUpstream(h);
        assertThat(asked).containsExactly(t.traceId());
        assertThat(sent(h, t)).startsWith("00-" + asked.get(0) + "-").endsWith("-01");
    }
}
