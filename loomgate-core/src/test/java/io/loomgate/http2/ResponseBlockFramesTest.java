package io.loomgate.http2;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.http.GeneratedField;
import io.loomgate.http.Headers;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/**
 * A response's header block encoded by the frame writer straight into its batch ({@link FrameWriter#responseHeaders}):
 * split into HEADERS and CONTINUATION frames in place at every frame size, past the pooled buffer's size, behind
 * other frames of the batch, and with many streams writing at once; read back frame by frame and HPACK-decoded.
 */
class ResponseBlockFramesTest {

    /** One frame as read back. */
    private record Frame(int type, int flags, int stream, byte[] payload) {
    }

    private static List<Frame> frames(byte[] wire) {
        List<Frame> out = new ArrayList<>();
        int at = 0;
        while (at < wire.length) {
            int len = (wire[at] & 0xff) << 16 | (wire[at + 1] & 0xff) << 8 | wire[at + 2] & 0xff;
            int stream = ((wire[at + 5] & 0x7f) << 24) | (wire[at + 6] & 0xff) << 16 | (wire[at + 7] & 0xff) << 8
                    | wire[at + 8] & 0xff;
            byte[] payload = new byte[len];
            System.arraycopy(wire, at + Frames.HEADER_LENGTH, payload, 0, len);
            out.add(new Frame(wire[at + 3], wire[at + 4] & 0xff, stream, payload));
            at += Frames.HEADER_LENGTH + len;
        }
        assertThat(at).as("the last frame ends where the bytes do").isEqualTo(wire.length);
        return out;
    }

    private static Headers fields(int seed, int count, int valueLength) {
        Headers h = new Headers();
        for (int i = 0; i < count; i++) {
            StringBuilder v = new StringBuilder();
            for (int k = 0; v.length() < valueLength; k++) {
                v.append(Long.toString((seed * 31L + i * 7 + k) * 2654435761L % 1000003 & 0xfffff, 36));
            }
            h.add("X-Field-" + i, v.substring(0, valueLength));
        }
        return h;
    }

    private static List<String> expected(int status, Headers h) {
        List<String> out = new ArrayList<>();
        if (status != ResponseBlock.TRAILERS) {
            out.add(":status: " + status);
        }
        for (int i = 0; i < h.size(); i++) {
            out.add(h.name(i).toLowerCase(Locale.ROOT) + ": " + h.value(i));
        }
        return out;
    }

    private static List<String> decode(ByteArrayOutputStream block) throws HpackException {
        List<String> out = new ArrayList<>();
        byte[] b = block.toByteArray();
        new HpackDecoder(4096).decode(b, b.length, Long.MAX_VALUE, (n, v) -> out.add(n + ": " + v));
        return out;
    }

    /**
     * Checks the frames of one stream's header block starting at {@code frames.get(i)}: HEADERS, then only
     * CONTINUATIONs of the same stream, each at most {@code maxFrame} long, none empty after the first, END_HEADERS on
     * the last alone; returns the index after it and adds the block's bytes to {@code block}.
     */
    private static int block(List<Frame> frames, int i, int maxFrame, ByteArrayOutputStream block) {
        Frame first = frames.get(i);
        assertThat(first.type()).isEqualTo(Frames.HEADERS);
        int stream = first.stream();
        Frame f = first;
        while (true) {
            assertThat(f.payload().length).isLessThanOrEqualTo(maxFrame);
            block.writeBytes(f.payload());
            i++;
            if ((f.flags() & Frames.FLAG_END_HEADERS) != 0) {
                return i;
            }
            f = frames.get(i);
            assertThat(f.type()).as("a block's frames are contiguous").isEqualTo(Frames.CONTINUATION);
            assertThat(f.stream()).isEqualTo(stream);
            assertThat(f.payload()).as("no empty CONTINUATION").isNotEmpty();
            assertThat(f.flags() & Frames.FLAG_END_STREAM).isZero();
        }
    }

    @Test
    void aBlockIsSplitInPlaceAtEveryFrameSize() throws Exception {
        Headers h = fields(1, 5, 40);
        int length = encodedLength(200, h);
        for (int maxFrame = 1; maxFrame <= length + 2; maxFrame++) {
            ByteArrayOutputStream wire = new ByteArrayOutputStream();
            FrameWriter w = new FrameWriter(wire);
            w.responseHeaders(3, 200, h, maxFrame, false);
            List<Frame> frames = frames(wire.toByteArray());
            ByteArrayOutputStream block = new ByteArrayOutputStream();
            assertThat(block(frames, 0, maxFrame, block)).isEqualTo(frames.size());
            assertThat(frames).hasSize((length + maxFrame - 1) / maxFrame);
            assertThat(frames.get(0).flags() & Frames.FLAG_END_STREAM).isZero();
            assertThat(decode(block)).as("frame size " + maxFrame).isEqualTo(expected(200, h));
        }
    }

    @Test
    void headAndFirstDataGoTogetherWhateverTheHeadsLength() throws Exception {
        byte[] body = "first bytes".getBytes(StandardCharsets.US_ASCII);
        for (int maxFrame : new int[] {16, 100, 16_384}) {
            Headers h = fields(2, 30, 90);
            ByteArrayOutputStream wire = new ByteArrayOutputStream();
            new FrameWriter(wire).responseHeadersAndData(5, 404, h, maxFrame, body, 0, body.length, true);
            List<Frame> frames = frames(wire.toByteArray());
            ByteArrayOutputStream block = new ByteArrayOutputStream();
            int next = block(frames, 0, maxFrame, block);
            assertThat(frames.get(0).flags() & Frames.FLAG_END_STREAM).as("the DATA ends the stream").isZero();
            assertThat(decode(block)).isEqualTo(expected(404, h));
            assertThat(frames).hasSize(next + 1);
            Frame data = frames.get(next);
            assertThat(data.type()).isEqualTo(Frames.DATA);
            assertThat(data.flags()).isEqualTo(Frames.FLAG_END_STREAM);
            assertThat(data.payload()).isEqualTo(body);
        }
    }

    @Test
    void trailersEndTheStreamWithoutAStatus() throws Exception {
        Headers t = new Headers();
        t.add("grpc-status", "0").add("Grpc-Message", "fine").add("x-checksum", "abc");
        ByteArrayOutputStream wire = new ByteArrayOutputStream();
        new FrameWriter(wire).responseHeaders(7, ResponseBlock.TRAILERS, t, 8, true);
        List<Frame> frames = frames(wire.toByteArray());
        ByteArrayOutputStream block = new ByteArrayOutputStream();
        assertThat(block(frames, 0, 8, block)).isEqualTo(frames.size());
        assertThat(frames.get(0).flags() & Frames.FLAG_END_STREAM).as("on the HEADERS frame").isNotZero();
        assertThat(decode(block)).containsExactly("grpc-status: 0", "grpc-message: fine", "x-checksum: abc");
    }

    @Test
    void aBlockLargerThanThePooledBufferGrowsIt() throws Exception {
        Headers h = fields(3, 60, 900); // 54 KB of values, ~40 KB Huffman-coded: five times the 8 KiB batch buffer
        int length = encodedLength(200, h);
        assertThat(length).isGreaterThan(2 * 16_384);
        ByteArrayOutputStream wire = new ByteArrayOutputStream();
        byte[] body = new byte[100];
        new FrameWriter(wire).responseHeadersAndData(9, 200, h, 16_384, body, 0, body.length, false);
        List<Frame> frames = frames(wire.toByteArray());
        ByteArrayOutputStream block = new ByteArrayOutputStream();
        int next = block(frames, 0, 16_384, block);
        assertThat(next).as("HEADERS and two CONTINUATIONs").isEqualTo(3);
        assertThat(decode(block)).isEqualTo(expected(200, h));
        assertThat(frames.get(next).type()).isEqualTo(Frames.DATA);
    }

    /**
     * Many streams' threads write heads, DATA and trailers through one batching writer at once, so blocks land behind
     * other streams' frames in a shared batch and batches grow: every block must come out contiguous and whole.
     */
    @Test
    void manyStreamsAtOnceKeepEachBlockContiguousAndWhole() throws Exception {
        ByteArrayOutputStream wire = new ByteArrayOutputStream();
        OutputStream out = new OutputStream() {
            @Override
            public void write(int b) {
                throw new UnsupportedOperationException();
            }

            @Override
            public synchronized void write(byte[] b, int off, int len) {
                wire.write(b, off, len);
            }
        };
        FrameWriter w = new FrameWriter(out, true);
        int maxFrame = 64;
        int streams = 64;
        int perStream = 20;
        List<Future<?>> done = new ArrayList<>();
        try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int s = 0; s < streams; s++) {
                int stream = 2 * s + 1;
                done.add(threads.submit(() -> {
                    for (int r = 0; r < perStream; r++) {
                        int seed = stream * 1000 + r;
                        byte[] body = ("body " + seed).getBytes(StandardCharsets.US_ASCII);
                        w.responseHeadersAndData(stream, 200, fields(seed, 1 + seed % 7, seed % 150), maxFrame, body,
                                0, body.length, false);
                        w.responseHeaders(stream, ResponseBlock.TRAILERS, fields(-seed, 1 + seed % 3, seed % 40),
                                maxFrame, true);
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get();
            }
        }
        w.flush();
        List<Frame> frames = frames(wire.toByteArray());
        Map<Integer, Integer> seen = new HashMap<>();
        int i = 0;
        while (i < frames.size()) {
            Frame f = frames.get(i);
            int stream = f.stream();
            int r = seen.getOrDefault(stream, 0);
            int seed = stream * 1000 + r / 2;
            ByteArrayOutputStream block = new ByteArrayOutputStream();
            i = block(frames, i, maxFrame, block);
            if (r % 2 == 0) {
                assertThat(decode(block)).isEqualTo(expected(200, fields(seed, 1 + seed % 7, seed % 150)));
                Frame data = frames.get(i);
                assertThat(data.type()).isEqualTo(Frames.DATA);
                assertThat(data.stream()).as("the DATA right behind its head").isEqualTo(stream);
                assertThat(new String(data.payload(), StandardCharsets.US_ASCII)).isEqualTo("body " + seed);
                i++;
            } else {
                assertThat(decode(block)).isEqualTo(expected(ResponseBlock.TRAILERS,
                        fields(-seed, 1 + seed % 3, seed % 40)));
                assertThat(f.flags() & Frames.FLAG_END_STREAM).isNotZero();
            }
            seen.put(stream, r + 1);
        }
        assertThat(seen).hasSize(streams).allSatisfy((stream, n) -> assertThat(n).isEqualTo(2 * perStream));
    }

    private static int encodedLength(int status, Headers h) {
        HeaderBlock b = new HeaderBlock(64);
        ResponseBlock.encode(b, status, h);
        return b.length();
    }

    /**
     * The request side ({@link FrameWriter#requestHeaders}, for an HTTP/2 origin): the block written straight into the
     * writer's buffer is, byte for byte, the one {@link Http2ClientStream#encodeRequest} builds in an array of its
     * own, at every frame size, and for a block past the pooled buffer's size (its growth path).
     */
    @Test
    void aRequestBlockIsTheArraysBytesAtEveryFrameSizeAndPastThePooledBuffer() throws Exception {
        GeneratedField traceparent = new GeneratedField() {
            @Override
            public String name() {
                return "traceparent";
            }

            private static final String VALUE = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";

            @Override
            public int valueLength() {
                return VALUE.length();
            }

            @Override
            public char valueAt(int i) {
                return VALUE.charAt(i);
            }
        };
        for (Headers h : List.of(fields(2, 6, 30), fields(3, 60, 900))) {
            h.add("Host", "client.example").add("Connection", "keep-alive").add("TE", "gzip");
            byte[] array = Http2ClientStream.encodeRequest("POST", "https", "origin:8443", "/a?b=c", h, traceparent);
            int[] sizes = array.length < 1000 ? java.util.stream.IntStream.rangeClosed(1, array.length + 2).toArray()
                    : new int[] {16_384, 1000, array.length};
            for (int maxFrame : sizes) {
                ByteArrayOutputStream wire = new ByteArrayOutputStream();
                new FrameWriter(wire).requestHeaders(5, "POST", "https", "origin:8443", "/a?b=c", h, traceparent,
                        maxFrame, true);
                List<Frame> frames = frames(wire.toByteArray());
                ByteArrayOutputStream block = new ByteArrayOutputStream();
                assertThat(block(frames, 0, maxFrame, block)).isEqualTo(frames.size());
                assertThat(frames.get(0).flags() & Frames.FLAG_END_STREAM).isEqualTo(Frames.FLAG_END_STREAM);
                assertThat(frames.get(0).stream()).isEqualTo(5);
                assertThat(block.toByteArray()).as("frame size %d, block %d B", maxFrame, array.length)
                        .isEqualTo(array);
            }
        }
    }

    @Test
    void requestTrailersGoStraightIntoTheBufferWithEndStream() throws Exception {
        Headers t = new Headers().add("grpc-status", "0").add(":bad", "x").add("X-Sum", "42");
        ByteArrayOutputStream wire = new ByteArrayOutputStream();
        new FrameWriter(wire).requestHeaders(9, null, null, null, null, t, null, 4, true);
        List<Frame> frames = frames(wire.toByteArray());
        ByteArrayOutputStream block = new ByteArrayOutputStream();
        assertThat(block(frames, 0, 4, block)).isEqualTo(frames.size());
        assertThat(frames.get(0).flags() & Frames.FLAG_END_STREAM).isEqualTo(Frames.FLAG_END_STREAM);
        assertThat(decode(block)).containsExactly("grpc-status: 0", "x-sum: 42");
    }
}
