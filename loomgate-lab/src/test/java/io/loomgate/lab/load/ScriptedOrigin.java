package io.loomgate.lab.load;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A raw-socket HTTP/1.1 peer for load generator tests, scripted per request (numbered from 0 across connections):
 * answer with a status after a delay, answer and close, cut the connection mid-response, or never answer. Records
 * every request (head and body) and counts connections.
 */
final class ScriptedOrigin implements AutoCloseable {

    sealed interface Reply {
    }

    record Respond(int status, long delayMillis, boolean close) implements Reply {
    }

    /** Sends half a status line, then closes. */
    record CutOff() implements Reply {
    }

    /** Reads the request and never answers. */
    record Hang() implements Reply {
    }

    interface Script {
        Reply reply(int requestNumber);
    }

    static Reply ok() {
        return new Respond(200, 0, false);
    }

    private final ServerSocket server;
    private final Script script;
    private final AtomicInteger requests = new AtomicInteger();
    final AtomicInteger connections = new AtomicInteger();
    final List<String> received = new CopyOnWriteArrayList<>();
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();

    ScriptedOrigin(Script script) throws IOException {
        this.script = script;
        this.server = new ServerSocket(0, 1000, InetAddress.getLoopbackAddress());
        Thread.ofVirtual().name("scripted-origin-accept").start(this::acceptLoop);
    }

    String url(String path) {
        return "http://127.0.0.1:" + server.getLocalPort() + path;
    }

    int requests() {
        return requests.get();
    }

    private void acceptLoop() {
        try {
            while (true) {
                Socket s = server.accept();
                sockets.add(s);
                connections.incrementAndGet();
                Thread.ofVirtual().start(() -> serve(s));
            }
        } catch (IOException e) {
            // closed
        }
    }

    private void serve(Socket s) {
        try (s) {
            InputStream in = s.getInputStream();
            OutputStream out = s.getOutputStream();
            while (true) {
                String head = readHead(in);
                if (head == null) {
                    return;
                }
                int length = contentLength(head);
                String body = new String(in.readNBytes(length), StandardCharsets.UTF_8);
                received.add(head + body);
                Reply reply = script.reply(requests.getAndIncrement());
                switch (reply) {
                    case Respond r -> {
                        if (r.delayMillis() > 0) {
                            Thread.sleep(r.delayMillis());
                        }
                        out.write(("HTTP/1.1 " + r.status() + " X\r\nContent-Length: 2\r\n"
                                + (r.close() ? "Connection: close\r\n" : "") + "\r\nok")
                                .getBytes(StandardCharsets.US_ASCII));
                        out.flush();
                        if (r.close()) {
                            return;
                        }
                    }
                    case CutOff c -> {
                        out.write("HTTP/1.1 2".getBytes(StandardCharsets.US_ASCII));
                        out.flush();
                        return;
                    }
                    case Hang h -> {
                        in.read(); // until the client gives up and closes
                        return;
                    }
                }
            }
        } catch (IOException | InterruptedException e) {
            // the client went away
        }
    }

    private static String readHead(InputStream in) throws IOException {
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        int matched = 0;
        int b;
        while ((b = in.read()) >= 0) {
            head.write(b);
            matched = (b == "\r\n\r\n".charAt(matched)) ? matched + 1 : (b == '\r' ? 1 : 0);
            if (matched == 4) {
                return head.toString(StandardCharsets.US_ASCII);
            }
        }
        return null;
    }

    private static int contentLength(String head) {
        for (String line : head.split("\r\n")) {
            if (line.regionMatches(true, 0, "Content-Length:", 0, 15)) {
                return Integer.parseInt(line.substring(15).trim());
            }
        }
        return 0;
    }

    @Override
    public void close() throws IOException {
        server.close();
        for (Socket s : sockets) {
            s.close();
        }
    }
}
