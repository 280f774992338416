package io.loomgate.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.HashMap;
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
    void everyMethodOnTheOriginWaitFitsC2sInlineLimit() throws IOException {
        List<String> tooLarge = new ArrayList<>();
        for (var e : PATH.entrySet()) {
            Map<String, Integer> sizes = codeSizes(e.getKey());
            for (String method : e.getValue()) {
                assertThat(sizes).as("%s has a method %s", e.getKey(), method).containsKey(method);
                if (sizes.get(method) > FREQ_INLINE_SIZE) {
                    tooLarge.add(e.getKey() + "." + method + ": " + sizes.get(method) + " bytes");
                }
            }
        }
        assertThat(tooLarge).as("methods a parked stream keeps a frame for: move their cold parts out").isEmpty();
    }

    /** Each method's bytecode length (the largest of its overloads), read from the class file. */
    private static Map<String, Integer> codeSizes(String className) throws IOException {
        String resource = "/" + className.replace('.', '/') + ".class";
        try (InputStream raw = OriginWaitPathInlineSizeTest.class.getResourceAsStream(resource)) {
            assertThat(raw).as(resource).isNotNull();
            DataInputStream in = new DataInputStream(raw);
            in.readInt(); // magic
            in.readInt(); // minor, major
            int count = in.readUnsignedShort();
            String[] utf8 = new String[count];
            for (int i = 1; i < count; i++) {
                int tag = in.readUnsignedByte();
                switch (tag) {
                    case 1 -> utf8[i] = in.readUTF();
                    case 7, 8, 16, 19, 20 -> in.skipBytes(2);
                    case 15 -> in.skipBytes(3);
                    case 3, 4, 9, 10, 11, 12, 17, 18 -> in.skipBytes(4);
                    case 5, 6 -> {
                        in.skipBytes(8);
                        i++; // a long or double takes two entries
                    }
                    default -> throw new IOException("constant pool tag " + tag + " in " + resource);
                }
            }
            in.skipBytes(6); // access, this, super
            in.skipBytes(2 * in.readUnsignedShort()); // interfaces
            int fields = in.readUnsignedShort();
            for (int f = 0; f < fields; f++) {
                in.skipBytes(6);
                skipAttributes(in);
            }
            Map<String, Integer> sizes = new HashMap<>();
            int methods = in.readUnsignedShort();
            for (int m = 0; m < methods; m++) {
                in.skipBytes(2);
                String name = utf8[in.readUnsignedShort()];
                in.skipBytes(2);
                int attributes = in.readUnsignedShort();
                for (int a = 0; a < attributes; a++) {
                    String attribute = utf8[in.readUnsignedShort()];
                    int length = in.readInt();
                    if (attribute.equals("Code")) {
                        in.skipBytes(4); // max_stack, max_locals
                        int codeLength = in.readInt();
                        sizes.merge(name, codeLength, Math::max);
                        in.skipBytes(length - 8);
                    } else {
                        in.skipBytes(length);
                    }
                }
            }
            return sizes;
        }
    }

    private static void skipAttributes(DataInputStream in) throws IOException {
        int attributes = in.readUnsignedShort();
        for (int a = 0; a < attributes; a++) {
            in.skipBytes(2);
            in.skipBytes(in.readInt());
        }
    }
}
