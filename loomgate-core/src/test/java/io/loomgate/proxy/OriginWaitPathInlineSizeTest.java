package io.loomgate.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.testkit.ClassFileMethods;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The gateway's methods a proxied stream's virtual thread holds across its origin wait (from the stream's task down
 * to {@code HttpInput}'s read) each stay within C2's default {@code FreqInlineSize}, 325 bytes of bytecode: a hot
 * method larger than that is never inlined into its caller, so it keeps a physical frame of its own, and every
 * stream parked on its origin carries that frame in its stack chunk (copied at every young collection while it
 * waits). Session 50 measured it (journal 2026-12-01-s50-stackchunk): {@code UpstreamForwarder.proceed} (417
 * bytes then, 451 once the exchange's deadline became a local) and {@code tryUpstream} (372; 381) were two frames of
 * 16 and 22-24 words in every parked stream; under the limit C2 folds them into one with the filter chain's link. Exact sizes are the JIT's; this pins the part that is ours.
 */
class OriginWaitPathInlineSizeTest {
    /** C2's default -XX:FreqInlineSize on x86-64 and aarch64. */
    private static final int FREQ_INLINE_SIZE = 325;

    /** Class, then the methods of it on the origin wait's stack (the thread dump's frames, section 1 of the journal). */
    private static final Map<String, List<String>> PATH = Map.of(
            "io.loomgate.threads.ConnectionExecutors", List.of("lambda$counted$0"),
            "io.loomgate.http2.ServerFrames", List.of("runStream", "lambda$openAdmitted$0"),
            "io.loomgate.server.ClientConnection", List.of("serveStream"),
            "io.loomgate.proxy.ProxyHandler", List.of("handle", "exchange", "proxy", "runFilters", "guarded"),
            "io.loomgate.filter.FilterChains$Link", List.of("proceed"),
            "io.loomgate.proxy.UpstreamForwarder", List.of("proceed", "tryUpstream"),
            "io.loomgate.proxy.UpstreamAttempt", List.of("readHead", "readOneHead"),
            "io.loomgate.proxy.Http1Codec", List.of("readHead"),
            "io.loomgate.http1.HttpInput", List.of("readResponseHead", "awaitDataBuffered"),
            "io.loomgate.threads.WatchedInputStream", List.of("read", "watchedRead"));

    @Test
    void everyMethodOnTheOriginWaitFitsC2sInlineLimit() {
        List<String> tooLarge = new ArrayList<>();
        for (var e : PATH.entrySet()) {
            Map<String, ClassFileMethods.Code> methods = ClassFileMethods.of(e.getKey());
            for (String method : e.getValue()) {
                assertThat(methods).as("%s has a method %s", e.getKey(), method).containsKey(method);
                int size = methods.get(method).length();
                if (size > FREQ_INLINE_SIZE) {
                    tooLarge.add(e.getKey() + "." + method + ": " + size + " bytes");
                }
            }
        }
        assertThat(tooLarge).as("methods a parked stream keeps a frame for: move their cold parts out").isEmpty();
    }
}
