import com.sun.net.httpserver.HttpServer;
import java.net.InetSocketAddress;
import java.util.concurrent.Executors;

/** The floor: a JDK HttpServer answering 200 on one virtual thread per exchange, nothing else. */
public class Hello {
    public static void main(String[] a) throws Exception {
        HttpServer s = HttpServer.create(new InetSocketAddress("127.0.0.1", Integer.parseInt(a[0])), 128);
        s.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
        byte[] body = "hello\n".getBytes();
        s.createContext("/", x -> { x.sendResponseHeaders(200, body.length); x.getResponseBody().write(body); x.close(); });
        s.start();
    }
}
