package io.loomgate.testkit;

import io.loomgate.threads.ConnectionExecutors;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Relays one connection to the gateway byte for byte, counting the TLS records the gateway sends: each record's
 * header (RFC 8446 §5.1: type, version, length) is read whole, the record counted, then the header and body passed
 * on, so a record the client has received has been counted.
 */
public final class TlsRecordRelay implements AutoCloseable {
    private final ServerSocket listener = new ServerSocket();
    private final AtomicInteger records = new AtomicInteger();
    private volatile Socket toClient;
    private volatile Socket toGateway;

    public TlsRecordRelay(int gatewayPort) throws IOException {
        listener.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        ConnectionExecutors.startVirtual("records-relay", () -> {
            try {
                toClient = listener.accept();
                toGateway = new Socket(InetAddress.getLoopbackAddress(), gatewayPort);
                ConnectionExecutors.startVirtual("records-relay-up", () -> pipe(toClient, toGateway));
                countRecords(toGateway.getInputStream(), toClient.getOutputStream());
            } catch (IOException e) {
                // the test closed the relay, or a side went away: the test's own reads fail if it matters
            }
        });
    }

    public int port() {
        return listener.getLocalPort();
    }

    /** TLS records the gateway has sent so far, the handshake's included. */
    public int recordsToClient() {
        return records.get();
    }

    private static void pipe(Socket from, Socket to) {
        try {
            from.getInputStream().transferTo(to.getOutputStream());
        } catch (IOException e) {
            // one side closed
        }
    }

    private void countRecords(InputStream in, OutputStream out) throws IOException {
        byte[] header = new byte[5];
        while (in.readNBytes(header, 0, 5) == 5) {
            int length = (header[3] & 0xff) << 8 | header[4] & 0xff;
            byte[] body = in.readNBytes(length);
            if (body.length < length) {
                return;
            }
            records.incrementAndGet();
            out.write(header);
            out.write(body);
            out.flush();
        }
    }

    @Override
    public void close() throws IOException {
        listener.close();
        for (Socket s : new Socket[] {toClient, toGateway}) {
            if (s != null) {
                s.close();
            }
        }
    }
}
