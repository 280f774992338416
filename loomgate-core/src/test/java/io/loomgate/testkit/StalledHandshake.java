package io.loomgate.testkit;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A TLS origin whose handshake stalls: a loopback listener that accepts every connection and holds it, never writing
 * a byte back, so a client's handshake waits until its own timeout. (For a TCP connect that stalls, {@link BlackHole}.)
 */
public final class StalledHandshake implements AutoCloseable {
    private final ServerSocket listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    private final List<Socket> held = new CopyOnWriteArrayList<>();

    public StalledHandshake() throws IOException {
        Thread.ofVirtual().name("stalled-handshake").start(() -> {
            while (!listener.isClosed()) {
                try {
                    held.add(listener.accept());
                } catch (IOException e) {
                    return; // closed
                }
            }
        });
    }

    public int port() {
        return listener.getLocalPort();
    }

    /** Connections accepted so far (each one a handshake that was started and never answered). */
    public int accepted() {
        return held.size();
    }

    @Override
    public void close() throws IOException {
        listener.close();
        for (Socket s : held) {
            s.close();
        }
    }
}
