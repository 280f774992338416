package io.loomgate.http2;

import static java.nio.charset.StandardCharsets.US_ASCII;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The frame reader reads the payloads of HEADERS, CONTINUATION and the small control frames into one buffer of the
 * connection's and decodes a block that ends in its HEADERS frame in place: every shape of header block (padded, with
 * a priority, both, spread over CONTINUATION frames, over the kept size) still decodes to its own fields however the
 * frames before it left that buffer, the control frames' lengths are their own (not the buffer's), and reading a
 * usual HEADERS frame allocates nothing of its own.
 */
class FrameReaderTest {
    private static final int MAX_LIST = 64 * 1024;

    /** A block: GET, http, {@code path} (a literal, Huffman-coded where shorter), then each name, value pair. */
    private static byte[] block(String path, String... namesAndValues) {
        HeaderBlock b = new HeaderBlock(64);
        b.write(0x82); // :method GET
        b.write(0x86); // :scheme http
        HpackEncoder.integer(b, 0x00, 4, 4); // :path, literal without indexing
        HpackEncoder.string(b, path);
        for (int i = 0; i < namesAndValues.length; i += 2) {
            b.write(0x00); // literal without indexing, new name
            HpackEncoder.string(b, namesAndValues[i]);
            HpackEncoder.string(b, namesAndValues[i + 1]);
        }
        return b.toByteArray();
    }

    private static List<String> fields(String path, String... namesAndValues) {
        List<String> out = new ArrayList<>(List.of(":method: GET", ":scheme: http", ":path: " + path));
        for (int i = 0; i < namesAndValues.length; i += 2) {
            out.add(namesAndValues[i] + ": " + namesAndValues[i + 1]);
        }
        return out;
    }

    private static void frame(ByteArrayOutputStream out, int type, int flags, int stream, byte[] payload) {
        out.write(payload.length >>> 16);
        out.write(payload.length >>> 8);
        out.write(payload.length);
        out.write(type);
        out.write(flags);
        out.write(stream >>> 24);
        out.write(stream >>> 16);
        out.write(stream >>> 8);
        out.write(stream);
        out.writeBytes(payload);
    }

    private static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] p : parts) {
            out.writeBytes(p);
        }
        return out.toByteArray();
    }

    private static byte[] priority(int dependsOn) {
        return new byte[] {(byte) (dependsOn >>> 24), (byte) (dependsOn >>> 16), (byte) (dependsOn >>> 8),
                (byte) dependsOn, 15};
    }

    /** The fields of one block, as "name: value"; or only counted (no line made), for the allocation count. */
    static final class Fields implements HpackDecoder.FieldSink {
        final List<String> lines = new ArrayList<>();
        boolean countOnly;
        int count;

        @Override
        public void field(String name, String value) {
            count++;
            if (!countOnly) {
                lines.add(name + ": " + value);
            }
        }
    }

    /** What the reader handed on, one line per event. */
    static class Recorder implements FrameReader.Handler<Fields> {
        final List<String> events = new ArrayList<>();

        @Override
        public boolean isIdle(int stream) {
            return false;
        }

        @Override
        public void data(int stream, byte[] payload, int off, int len, boolean endStream) {
            events.add("data " + stream + " " + new String(payload, off, len, US_ASCII)
                    + (endStream ? " end" : ""));
        }

        @Override
        public Fields fieldsFor(int stream, int blockFields) {
            return new Fields();
        }

        @Override
        public void headers(int stream, Fields fields, boolean withinLimit, boolean endStream, boolean selfDependent) {
            events.add("headers " + stream + (endStream ? " end" : "") + (selfDependent ? " self" : "") + " "
                    + fields.lines);
        }

        @Override
        public void rstStream(int stream, int code) {
            events.add("rst " + stream + " " + code);
        }

        @Override
        public void settings(byte[] payload) {
            events.add("settings " + payload.length);
        }

        @Override
        public void settingsAck() {
            events.add("settings ack");
        }

        @Override
        public void ping(boolean ack, byte[] payload) {
            events.add("ping " + Arrays.toString(payload));
        }

        @Override
        public void goAway(int lastStreamId, int code, byte[] payload) {
            events.add("goaway " + lastStreamId + " " + code + " " + payload.length);
        }

        @Override
        public void windowUpdate(int stream, int increment) {
            events.add("window " + stream + " " + increment);
        }

        @Override
        public void streamError(int stream, int code, String why) {
            events.add("stream error " + stream + " " + code);
        }

        @Override
        public void priority(int stream) {
            events.add("priority " + stream);
        }
    }

    private static <F extends HpackDecoder.FieldSink> FrameReader<F> reader(byte[] frames,
                                                                           FrameReader.Handler<F> handler) {
        return new FrameReader<>("test", true, FrameInput.unbuffered(new ByteArrayInputStream(frames)),
                new FrameWriter(OutputStream.nullOutputStream()), Frames.DEFAULT_WINDOW, MAX_LIST, handler);
    }

    /** Reads every frame; parks the reader (as an idle connection does) before the frames whose index is listed. */
    private static void readAll(FrameReader<?> r, int... parkBefore) throws IOException, Http2Exception {
        for (int i = 0; ; i++) {
            for (int p : parkBefore) {
                if (p == i) {
                    r.parking();
                }
            }
            int got = r.awaitFrame();
            if (got < 0) {
                return;
            }
            r.readFrame(got);
        }
    }

    @Test
    void headerBlocksOfEveryShapeDecodeToTheirOwnFieldsWhateverTheBufferHeld() throws Exception {
        String big = "x".repeat(FrameReader.KEPT_FRAME + 900); // one field over the kept buffer's size
        String[] usual = {"user-agent", "h2load nghttp2/1.52.0", "accept", "*/*"};
        byte[] b9 = block("/continued", "x-a", "1".repeat(300), "x-b", "two");
        byte[] b15 = block("/big-continued", "x-big", big);
        byte[] pad7 = new byte[7];
        Arrays.fill(pad7, (byte) 0x5a); // padding bytes that would read as fields if taken for the block
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        frame(out, Frames.HEADERS, Frames.FLAG_END_HEADERS | Frames.FLAG_END_STREAM, 1, block("/one", usual));
        frame(out, Frames.WINDOW_UPDATE, 0, 0, new byte[] {0, 0, 0x10, 0});
        frame(out, Frames.PRIORITY, 0, 3, priority(1));
        frame(out, Frames.HEADERS, Frames.FLAG_END_HEADERS | Frames.FLAG_PADDED, 3,
                concat(new byte[] {7}, block("/padded"), pad7));
        frame(out, Frames.HEADERS, Frames.FLAG_END_HEADERS | Frames.FLAG_PRIORITY, 5,
                concat(priority(3), block("/prioritised", usual)));
        frame(out, Frames.HEADERS, Frames.FLAG_END_HEADERS | Frames.FLAG_PADDED | Frames.FLAG_PRIORITY, 7,
                concat(new byte[] {7}, priority(7), block("/both, depending on itself"), pad7));
        // a block over three frames, the first padded: the buffer is read over by each CONTINUATION
        frame(out, Frames.HEADERS, Frames.FLAG_PADDED | Frames.FLAG_END_STREAM, 9,
                concat(new byte[] {7}, Arrays.copyOfRange(b9, 0, 100), pad7));
        frame(out, Frames.CONTINUATION, 0, 9, Arrays.copyOfRange(b9, 100, 110));
        frame(out, Frames.CONTINUATION, Frames.FLAG_END_HEADERS, 9, Arrays.copyOfRange(b9, 110, b9.length));
        frame(out, Frames.HEADERS, Frames.FLAG_END_HEADERS, 11, block("/large", "x-big", big)); // its own array
        frame(out, Frames.HEADERS, Frames.FLAG_END_HEADERS, 13, block("/after-large"));
        // a block over the kept size, in frames each under it
        frame(out, Frames.HEADERS, 0, 15, Arrays.copyOfRange(b15, 0, 3000));
        frame(out, Frames.CONTINUATION, 0, 15, Arrays.copyOfRange(b15, 3000, 4000));
        frame(out, Frames.CONTINUATION, Frames.FLAG_END_HEADERS, 15, Arrays.copyOfRange(b15, 4000, b15.length));
        frame(out, Frames.RST_STREAM, 0, 1, new byte[] {0, 0, 0, 8});
        frame(out, Frames.PING, 0, 0, new byte[] {1, 2, 3, 4, 5, 6, 7, 8});
        frame(out, Frames.DATA, Frames.FLAG_END_STREAM, 13, "body".getBytes(US_ASCII));
        frame(out, 0x42, 0, 0, new byte[100]); // an unknown type: ignored
        frame(out, Frames.PRIORITY, 0, 17, new byte[4]); // a stream error: its length, not the buffer's, counts
        frame(out, Frames.HEADERS, Frames.FLAG_END_HEADERS, 19, block("/last", usual));
        Recorder handler = new Recorder();
        // parked (the buffer let go) before the padded block, between CONTINUATIONs and after the large block
        readAll(reader(out.toByteArray(), handler), 3, 7, 10);
        assertThat(handler.events).containsExactly(
                "headers 1 end " + fields("/one", usual),
                "window 0 4096",
                "priority 3",
                "headers 3 " + fields("/padded"),
                "headers 5 " + fields("/prioritised", usual),
                "headers 7 self " + fields("/both, depending on itself"),
                "headers 9 end " + fields("/continued", "x-a", "1".repeat(300), "x-b", "two"),
                "headers 11 " + fields("/large", "x-big", big),
                "headers 13 " + fields("/after-large"),
                "headers 15 " + fields("/big-continued", "x-big", big),
                "rst 1 8",
                "ping [1, 2, 3, 4, 5, 6, 7, 8]",
                "data 13 body end",
                "stream error 17 " + Frames.FRAME_SIZE_ERROR,
                "headers 19 " + fields("/last", usual));
    }

    /** After a larger frame the buffer is longer than a control frame: each length check is the frame's own. */
    @Test
    void controlFramesOfTheWrongLengthAreRefusedAfterALargerFrame() {
        for (int[] typeAndLength : new int[][] {{Frames.WINDOW_UPDATE, 5}, {Frames.WINDOW_UPDATE, 3},
                {Frames.RST_STREAM, 5}, {Frames.RST_STREAM, 3}}) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            frame(out, Frames.HEADERS, Frames.FLAG_END_HEADERS, 1, block("/first", "x-pad", "p".repeat(500)));
            frame(out, typeAndLength[0], 0, 1, new byte[typeAndLength[1]]);
            Recorder handler = new Recorder();
            assertThatThrownBy(() -> readAll(reader(out.toByteArray(), handler)))
                    .as("type %d of %d bytes", typeAndLength[0], typeAndLength[1])
                    .isInstanceOfSatisfying(Http2Exception.class, e -> {
                        assertThat(e.isConnectionError()).isTrue();
                        assertThat(e.code()).isEqualTo(Frames.FRAME_SIZE_ERROR);
                    });
            assertThat(handler.events).hasSize(1);
        }
        // a padded HEADERS whose padding leaves no room: refused on its own length, not the buffer's
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        frame(out, Frames.HEADERS, Frames.FLAG_END_HEADERS, 1, block("/first", "x-pad", "p".repeat(500)));
        byte[] allPadding = {9, (byte) 0x82, (byte) 0x86};
        frame(out, Frames.HEADERS, Frames.FLAG_END_HEADERS | Frames.FLAG_PADDED, 3, allPadding);
        assertThatThrownBy(() -> readAll(reader(out.toByteArray(), new Recorder())))
                .isInstanceOfSatisfying(Http2Exception.class,
                        e -> assertThat(e.code()).isEqualTo(Frames.PROTOCOL_ERROR));
    }

    /**
     * The count the reader's own buffer is for: reading a HEADERS frame and decoding its block in place allocates
     * nothing (before, an array per frame, the block's).
     */
    @Test
    void readingAUsualHeadersFrameAllocatesNothingOfItsOwn() throws Exception {
        byte[] indexedOnly = {(byte) 0x82, (byte) 0x86, (byte) 0x84, (byte) 0x87}; // no string to make
        int rounds = 10_000;
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (int i = 0; i < rounds + 10; i++) {
            frame(out, Frames.HEADERS, Frames.FLAG_END_HEADERS | Frames.FLAG_END_STREAM, 1 + 2 * i, indexedOnly);
        }
        Fields sink = new Fields();
        sink.countOnly = true;
        FrameReader.Handler<Fields> handler = new Recorder() {
            @Override
            public Fields fieldsFor(int stream, int blockFields) {
                return sink;
            }

            @Override
            public void headers(int stream, Fields fields, boolean withinLimit, boolean endStream,
                                boolean selfDependent) {
                // counted by the sink
            }
        };
        FrameReader<Fields> r = reader(out.toByteArray(), handler);
        for (int i = 0; i < 10; i++) { // the buffer made, classes loaded
            r.readFrame(r.awaitFrame());
        }
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long before = mx.getCurrentThreadAllocatedBytes();
        for (int i = 0; i < rounds; i++) {
            r.readFrame(r.awaitFrame());
        }
        long perFrame = (mx.getCurrentThreadAllocatedBytes() - before) / rounds;
        assertThat(sink.count).isEqualTo(4 * (rounds + 10));
        // under 8 B, not 0: a one-time allocation during the loop (the JIT replacing the interpreted loop) read 2 B per
        // frame over 1,000 frames in one clean-clone run; an array per frame is at least 24 B
        assertThat(perFrame).as("bytes allocated per HEADERS frame read and decoded").isLessThan(8);
    }
}
