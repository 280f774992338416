package io.loomgate.lab.backend;

import io.loomgate.http.Headers;
import io.loomgate.http.ResponseHead;
import io.loomgate.http1.BodyFraming;
import io.loomgate.server.ServerExchange;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;

/**
 * A WebSocket echo (RFC 6455): the opening handshake, then every data frame sent back as it came (same opcode and
 * FIN bit, so fragmented messages come back fragmented), pings answered with pongs, and a close echoed before the
 * connection ends. Frames from the client must be masked (§5.1); frames to it are not. Text is echoed without UTF-8
 * validation: this is a test peer, not a conformant endpoint.
 */
final class WebSocketEcho {
    private static final String GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";
    /** The largest frame payload accepted; a bigger one is refused with close code 1009 (message too big). */
    static final long MAX_PAYLOAD = 16 * 1024 * 1024;
    private static final int CONTINUATION = 0x0;
    private static final int TEXT = 0x1;
    private static final int BINARY = 0x2;
    private static final int CLOSE = 0x8;
    private static final int PING = 0x9;
    private static final int PONG = 0xA;

    private WebSocketEcho() {
    }

    static void serve(ServerExchange ex) throws IOException {
        Headers h = ex.request().headers();
        String key = h.first("Sec-WebSocket-Key");
        if (!"GET".equals(ex.request().method()) || !h.hasToken("Upgrade", "websocket")
                || !h.hasToken("Connection", "upgrade") || key == null) {
            ex.respond(400, "/ws needs a WebSocket handshake: GET with Upgrade: websocket, Connection: Upgrade "
                    + "and Sec-WebSocket-Key\n");
            return;
        }
        if (!"13".equals(h.first("Sec-WebSocket-Version"))) {
            ResponseHead head = ResponseHead.of(426);
            head.headers().add("Sec-WebSocket-Version", "13");
            byte[] body = "only WebSocket version 13 is supported\n".getBytes(StandardCharsets.UTF_8);
            ServerExchange.ResponseBody out = ex.sendHead(head, new BodyFraming.Fixed(body.length));
            out.write(body);
            out.finish(null);
            return;
        }
        ResponseHead head = ResponseHead.of(101);
        head.headers().add("Upgrade", "websocket");
        head.headers().add("Connection", "Upgrade");
        head.headers().add("Sec-WebSocket-Accept", acceptKey(key.trim()));
        ServerExchange.Tunnel tunnel = ex.upgrade(head);
        echoFrames(tunnel.fromClient(), tunnel.toClient());
    }

    /** The Sec-WebSocket-Accept value for a key (§4.2.2): base64 of the SHA-1 of the key and the fixed GUID. */
    static String acceptKey(String key) {
        try {
            byte[] sha1 = MessageDigest.getInstance("SHA-1").digest((key + GUID).getBytes(StandardCharsets.US_ASCII));
            return Base64.getEncoder().encodeToString(sha1);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-1", e);
        }
    }

    private static void echoFrames(InputStream in, OutputStream out) throws IOException {
        try {
            while (true) {
                int b0 = in.read();
                if (b0 < 0) {
                    return;
                }
                int b1 = readByte(in);
                boolean fin = (b0 & 0x80) != 0;
                int opcode = b0 & 0x0F;
                long length = payloadLength(in, b1 & 0x7F);
                if ((b0 & 0x70) != 0 || (b1 & 0x80) == 0 || !knownOpcode(opcode)
                        || (opcode >= CLOSE && (!fin || length > 125))) {
                    // RFC 6455 §5.2 (no extension negotiated, so RSV must be 0), §5.1 (clients mask), §5.5.
                    close(out, 1002);
                    return;
                }
                if (length > MAX_PAYLOAD) {
                    close(out, 1009);
                    return;
                }
                byte[] mask = in.readNBytes(4);
                byte[] payload = in.readNBytes((int) length);
                if (mask.length < 4 || payload.length < length) {
                    return;
                }
                for (int i = 0; i < payload.length; i++) {
                    payload[i] ^= mask[i & 3];
                }
                switch (opcode) {
                    case PING -> writeFrame(out, true, PONG, payload);
                    case PONG -> {
                        // unsolicited pongs need no answer (§5.5.3)
                    }
                    case CLOSE -> {
                        writeFrame(out, true, CLOSE, payload);
                        return;
                    }
                    default -> writeFrame(out, fin, opcode, payload);
                }
            }
        } catch (EOFException e) {
            // the client went away mid-frame: nothing to answer
        }
    }

    private static boolean knownOpcode(int opcode) {
        return opcode == CONTINUATION || opcode == TEXT || opcode == BINARY || opcode == CLOSE || opcode == PING
                || opcode == PONG;
    }

    private static long payloadLength(InputStream in, int length7) throws IOException {
        if (length7 == 126) {
            return ((long) readByte(in) << 8) | readByte(in);
        }
        if (length7 == 127) {
            long n = 0;
            for (int i = 0; i < 8; i++) {
                n = (n << 8) | readByte(in);
            }
            return n < 0 ? Long.MAX_VALUE : n;
        }
        return length7;
    }

    private static int readByte(InputStream in) throws IOException {
        int b = in.read();
        if (b < 0) {
            throw new EOFException("connection ended inside a WebSocket frame");
        }
        return b;
    }

    private static void close(OutputStream out, int code) throws IOException {
        writeFrame(out, true, CLOSE, new byte[] {(byte) (code >> 8), (byte) code});
    }

    /** Writes one unmasked frame and flushes it. */
    static void writeFrame(OutputStream out, boolean fin, int opcode, byte[] payload) throws IOException {
        int n = payload.length;
        byte[] header;
        if (n <= 125) {
            header = new byte[] {(byte) ((fin ? 0x80 : 0) | opcode), (byte) n};
        } else if (n <= 0xFFFF) {
            header = new byte[] {(byte) ((fin ? 0x80 : 0) | opcode), 126, (byte) (n >> 8), (byte) n};
        } else {
            header = new byte[10];
            header[0] = (byte) ((fin ? 0x80 : 0) | opcode);
            header[1] = 127;
            for (int i = 0; i < 8; i++) {
                header[9 - i] = (byte) ((long) n >> (8 * i));
            }
        }
        out.write(header);
        out.write(payload);
        out.flush();
    }
}
