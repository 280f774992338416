package io.loomgate.http2;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;

/**
 * A client connection over a real socket whose other end the test plays as the origin, frame by frame: connected,
 * its preface read, the origin's SETTINGS (10 concurrent streams) taken. Shared by the client connection's scripted
 * tests ({@link Http2ClientConnectionTest}, {@link WriteAfterUnreadGoAwayTest}), which wrap the client's streams as
 * they need (a gate on the reader, an output that fails on command).
 */
final class ScriptedOriginPair implements AutoCloseable {
    final ServerSocket server;
    final Socket client;
    /** The origin's end, 20 s read timeout. */
    final Socket origin;
    final DataInputStream fromClient;
    final FrameWriter toClient;
    final Http2ClientConnection conn;

    private ScriptedOriginPair(UnaryOperator<InputStream> input, UnaryOperator<OutputStream> output)
            throws IOException {
        server = new ServerSocket(0);
        client = new Socket("127.0.0.1", server.getLocalPort());
        origin = server.accept();
        origin.setSoTimeout(20_000);
        fromClient = new DataInputStream(origin.getInputStream());
        toClient = new FrameWriter(origin.getOutputStream());
        conn = new Http2ClientConnection("test", input.apply(client.getInputStream()),
                output.apply(client.getOutputStream()), () -> {
                    try {
                        client.close();
                    } catch (IOException ignored) {
                        // closing anyway
                    }
                }, 65_536, () -> { }).start();
        byte[] preface = new byte[Frames.PREFACE.length];
        fromClient.readFully(preface);
        assertThat(preface).isEqualTo(Frames.PREFACE);
        toClient.settings(new int[] {Frames.SETTINGS_MAX_CONCURRENT_STREAMS, 10});
        conn.awaitSettings(System.nanoTime() + TimeUnit.SECONDS.toNanos(10));
    }

    static ScriptedOriginPair connect() throws IOException {
        return new ScriptedOriginPair(in -> in, out -> out);
    }

    /** With the client's input and output wrapped by {@code input} and {@code output}. */
    static ScriptedOriginPair connect(UnaryOperator<InputStream> input, UnaryOperator<OutputStream> output)
            throws IOException {
        return new ScriptedOriginPair(input, output);
    }

    /** Reads frames from the client until one of this type on this stream; returns its payload. */
    byte[] await(int type, int stream) throws IOException {
        while (true) {
            byte[] h = new byte[9];
            fromClient.readFully(h);
            int len = ((h[0] & 0xff) << 16) | ((h[1] & 0xff) << 8) | (h[2] & 0xff);
            byte[] p = new byte[len];
            fromClient.readFully(p);
            if ((h[3] & 0xff) == type && Frames.getInt(h, 5) == stream) {
                return p;
            }
        }
    }

    @Override
    public void close() throws IOException {
        conn.close("test over");
        origin.close();
        server.close();
    }
}
