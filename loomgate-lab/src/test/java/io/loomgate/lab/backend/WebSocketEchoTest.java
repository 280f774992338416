package io.loomgate.lab.backend;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The WebSocket echo: the RFC 6455 handshake, text and binary echo, ping/pong, close, and refusals. */
class WebSocketEchoTest {
    private static MockBackend backend;

    @BeforeAll
    static void start() throws IOException {
        backend = MockBackend.start(BackendSettings.defaults("127.0.0.1", 0));
    }

    @AfterAll
    static void stop() {
        backend.close();
    }

    @Test
    void theAcceptKeyIsTheOneOfTheRfcExample() {
        // RFC 6455 §1.3
        assertThat(WebSocketEcho.acceptKey("dGhlIHNhbXBsZSBub25jZQ==")).isEqualTo("s3pPLMBiTxaQ9kYGzzhZRbK+xOo=");
    }

    @Test
    void echoesTextBinaryAndPingsWithAStandardClient() throws Exception {
        LinkedBlockingQueue<Object> received = new LinkedBlockingQueue<>();
        WebSocket.Listener listener = new WebSocket.Listener() {
            private final StringBuilder text = new StringBuilder();

            @Override
            public CompletionStage<?> onText(WebSocket ws, CharSequence data, boolean last) {
                text.append(data);
                if (last) {
                    received.add(text.toString());
                    text.setLength(0);
                }
                ws.request(1);
                return null;
            }

            @Override
            public CompletionStage<?> onBinary(WebSocket ws, ByteBuffer data, boolean last) {
                byte[] b = new byte[data.remaining()];
                data.get(b);
                received.add(b);
                ws.request(1);
                return null;
            }

            @Override
            public CompletionStage<?> onPong(WebSocket ws, ByteBuffer message) {
                received.add("pong:" + StandardCharsets.UTF_8.decode(message));
                ws.request(1);
                return null;
            }

            @Override
            public CompletionStage<?> onClose(WebSocket ws, int statusCode, String reason) {
                received.add("close:" + statusCode);
                return null;
            }
        };
        try (HttpClient client = HttpClient.newHttpClient()) {
            WebSocket ws = client.newWebSocketBuilder().connectTimeout(Duration.ofSeconds(5))
                    .buildAsync(URI.create("ws://127.0.0.1:" + backend.port() + "/ws"), listener)
                    .get(5, TimeUnit.SECONDS);
            ws.sendText("hello", true).get(5, TimeUnit.SECONDS);
            assertThat(received.poll(5, TimeUnit.SECONDS)).isEqualTo("hello");

            String big = "y".repeat(70_000); // a 64-bit length frame
            ws.sendText(big, true).get(5, TimeUnit.SECONDS);
            assertThat(received.poll(5, TimeUnit.SECONDS)).isEqualTo(big);

            ws.sendBinary(ByteBuffer.wrap(new byte[] {1, 2, 3, (byte) 250}), true).get(5, TimeUnit.SECONDS);
            assertThat((byte[]) received.poll(5, TimeUnit.SECONDS)).containsExactly(1, 2, 3, (byte) 250);

            ws.sendPing(ByteBuffer.wrap("p1".getBytes(StandardCharsets.UTF_8))).get(5, TimeUnit.SECONDS);
            assertThat(received.poll(5, TimeUnit.SECONDS)).isEqualTo("pong:p1");

            CompletableFuture<WebSocket> closing = ws.sendClose(WebSocket.NORMAL_CLOSURE, "bye");
            closing.get(5, TimeUnit.SECONDS);
            assertThat(received.poll(5, TimeUnit.SECONDS)).isEqualTo("close:1000");
        }
    }

    @Test
    void anUnmaskedClientFrameIsAProtocolError() throws Exception {
        try (Socket s = new Socket("127.0.0.1", backend.port())) {
            s.setSoTimeout(5000);
            OutputStream out = s.getOutputStream();
            out.write(("GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                    + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = s.getInputStream();
            String head = readHead(in);
            assertThat(head).startsWith("HTTP/1.1 101").contains("Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=");
            out.write(new byte[] {(byte) 0x81, 0x02, 'h', 'i'}); // text frame without the mask bit
            out.flush();
            byte[] close = in.readNBytes(4);
            assertThat(close).containsExactly((byte) 0x88, 0x02, 0x03, (byte) 0xEA); // close, code 1002
        }
    }

    @Test
    void aPlainGetIsRefusedWithA400() throws Exception {
        try (HttpClient client = HttpClient.newHttpClient()) {
            var r = client.send(java.net.http.HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + backend.port() + "/ws")).build(),
                    java.net.http.HttpResponse.BodyHandlers.ofString());
            assertThat(r.statusCode()).isEqualTo(400);
            assertThat(r.body()).contains("WebSocket handshake");
        }
    }

    private static String readHead(InputStream in) throws IOException {
        StringBuilder sb = new StringBuilder();
        while (!sb.toString().endsWith("\r\n\r\n")) {
            int b = in.read();
            if (b < 0) {
                break;
            }
            sb.append((char) b);
        }
        return sb.toString();
    }
}
