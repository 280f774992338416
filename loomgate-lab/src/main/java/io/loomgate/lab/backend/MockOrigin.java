package io.loomgate.lab.backend;

import io.loomgate.http.RequestHead;
import io.loomgate.http.ResponseHead;
import io.loomgate.http.Status;
import io.loomgate.http1.BodyFraming;
import io.loomgate.server.ExchangeHandler;
import io.loomgate.server.ServerExchange;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;

/**
 * The mock origin of the lab: endpoints that wait, stream, echo, burn CPU, query a database or block while pinned,
 * so the gateway and the thread models can be measured against known behaviour. Stateless apart from the database
 * pool; every request is answered on the connection's own thread.
 */
public final class MockOrigin implements ExchangeHandler, AutoCloseable {
    static final byte[] HELLO = "Hello World!".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] DATA = "{\"data\":\"ok\"}\n".getBytes(StandardCharsets.US_ASCII);
    /** Streamed bodies are cut from this one buffer, so /bytes/{n} allocates nothing per request. */
    private static final byte[] FILLER = filler(64 * 1024);
    private static final long MAX_DELAY_MS = 600_000;

    private final Duration latency;
    private final Database database;
    private final PinnedBlock pinned = new PinnedBlock();

    public MockOrigin(BackendSettings settings) {
        this.latency = settings.latency();
        this.database = new Database(settings.jdbcUrl(), settings.dbPoolSize(), settings.dbStartTimeout());
    }

    /** Starts the database now rather than on the first /db; returns a line describing it. */
    public String startDatabase() throws IOException {
        return database.start();
    }

    /** What makes /pinned-block pin on this JDK. */
    public String pinningCause() {
        return pinned.cause();
    }

    /** How /db reaches its database, for the start-up banner. */
    public String databaseDescription() {
        return database.describe();
    }

    @Override
    public void handle(ServerExchange exchange) throws IOException {
        RequestHead request = exchange.request();
        String path = request.path();
        QueryParams query;
        try {
            query = new QueryParams(request.query());
            route(exchange, path, query);
        } catch (BadRequest e) {
            if (!exchange.isResponseStarted()) {
                exchange.respond(400, e.getMessage() + "\n");
            }
        }
    }

    private void route(ServerExchange ex, String path, QueryParams query) throws IOException {
        switch (path) {
            case "/hello" -> ex.respond(200, "text/plain", HELLO);
            case "/api/data" -> apiData(ex, query);
            case "/echo" -> echo(ex);
            case "/cpu" -> cpu(ex, query);
            case "/sse" -> serverSentEvents(ex, query);
            case "/ws" -> WebSocketEcho.serve(ex);
            case "/threadinfo" -> threadInfo(ex, query);
            case "/db" -> database.serve(ex);
            case "/pinned-block" -> pinned.serve(ex, query.number("ms", 100, 0, MAX_DELAY_MS), true);
            case "/unpinned-block" -> pinned.serve(ex, query.number("ms", 100, 0, MAX_DELAY_MS), false);
            case "/" -> ex.respond(200, index());
            default -> routeWithParameter(ex, path);
        }
    }

    private void routeWithParameter(ServerExchange ex, String path) throws IOException {
        if (path.startsWith("/blocking/")) {
            long seconds = QueryParams.parse("/blocking/{seconds}", path.substring(10), 0, MAX_DELAY_MS / 1000);
            sleep(Duration.ofSeconds(seconds));
            ex.respond(200, "blocked " + seconds + " s\n");
        } else if (path.startsWith("/bytes/")) {
            bytes(ex, QueryParams.parse("/bytes/{n}", path.substring(7), 0, Long.MAX_VALUE));
        } else if (path.startsWith("/status/")) {
            status(ex, (int) QueryParams.parse("/status/{code}", path.substring(8), 200, 599));
        } else {
            ex.respond(404, "no such endpoint: " + path + " (GET / lists them)\n");
        }
    }

    private void apiData(ServerExchange ex, QueryParams query) throws IOException {
        sleep(Duration.ofMillis(query.number("delay", latency.toMillis(), 0, MAX_DELAY_MS)));
        ex.respond(200, "application/json", DATA);
    }

    private static void bytes(ServerExchange ex, long n) throws IOException {
        ResponseHead head = ResponseHead.of(200);
        head.headers().add("Content-Type", "application/octet-stream");
        ServerExchange.ResponseBody out = ex.sendHead(head, new BodyFraming.Fixed(n));
        for (long left = n; left > 0; ) {
            int piece = (int) Math.min(left, FILLER.length);
            out.write(FILLER, 0, piece);
            left -= piece;
        }
        out.finish(null);
    }

    /** Streams the request body back as it arrives: chunked if it came chunked, else with its length. */
    private static void echo(ServerExchange ex) throws IOException {
        BodyFraming framing = switch (ex.requestFraming()) {
            case BodyFraming.Chunked c -> BodyFraming.CHUNKED;
            case BodyFraming.Fixed f -> f;
            default -> new BodyFraming.Fixed(0);
        };
        ResponseHead head = ResponseHead.of(200);
        String type = ex.request().headers().first("Content-Type");
        head.headers().add("Content-Type", type == null ? "application/octet-stream" : type);
        ServerExchange.ResponseBody out = ex.sendHead(head, framing);
        InputStream in = ex.requestBody();
        byte[] buffer = new byte[16 * 1024];
        int n;
        while ((n = in.read(buffer)) >= 0) {
            if (n > 0) {
                out.write(buffer, 0, n);
                out.flush();
            }
        }
        out.finish(null);
    }

    private static void status(ServerExchange ex, int code) throws IOException {
        if (Status.forbidsBody(code)) {
            ex.sendHead(ResponseHead.of(code), BodyFraming.NONE).finish(null);
        } else {
            ex.respond(code, "status " + code + "\n");
        }
    }

    private static void cpu(ServerExchange ex, QueryParams query) throws IOException {
        long ms = query.number("ms", 10, 0, MAX_DELAY_MS);
        long checksum = CpuWork.burn(Duration.ofMillis(ms));
        ex.respond(200, "burned " + ms + " ms of CPU (" + Long.toHexString(checksum) + ")\n");
    }

    private static void serverSentEvents(ServerExchange ex, QueryParams query) throws IOException {
        long events = query.number("events", 5, 0, 1_000_000);
        Duration interval = Duration.ofMillis(query.number("interval", 100, 0, MAX_DELAY_MS));
        ResponseHead head = ResponseHead.of(200);
        head.headers().add("Content-Type", "text/event-stream");
        head.headers().add("Cache-Control", "no-cache");
        ServerExchange.ResponseBody out = ex.sendHead(head, BodyFraming.CHUNKED);
        for (long i = 0; i < events; i++) {
            if (i > 0) {
                sleep(interval);
            }
            out.write(("id: " + i + "\ndata: event " + i + "\n\n").getBytes(StandardCharsets.UTF_8));
            out.flush();
        }
        out.finish(null);
    }

    /** When the request was sent (as the client says), started and completed here, and on what thread. */
    private static void threadInfo(ServerExchange ex, QueryParams query) throws IOException {
        long started = System.currentTimeMillis();
        sleep(Duration.ofMillis(query.number("delay", 0, 0, MAX_DELAY_MS)));
        Thread t = Thread.currentThread();
        String sent = query.text("sent");
        String text = "sent: " + (sent == null ? "-" : sent) + "\nstarted: " + started + "\ncompleted: "
                + System.currentTimeMillis() + "\nthread: " + t.getName() + "\nvirtual: " + t.isVirtual() + "\n";
        ex.respond(200, text);
    }

    private static String index() {
        return """
                Loomgate mock origin
                  /hello                      12 bytes at once
                  /api/data[?delay=ms]        waits the configured latency, then a short JSON body
                  /blocking/{seconds}         waits that long
                  /bytes/{n}                  n bytes, streamed with Content-Length
                  /echo                       the request body, streamed back
                  /status/{code}              that status
                  /cpu?ms=N                   N ms of busy CPU work
                  /sse?events=N&interval=ms   Server-Sent Events
                  /ws                         WebSocket echo
                  /threadinfo?sent=ms         timings and the thread that served it
                  /db                         SELECT pg_sleep(0.05) through a JDBC pool, then ~10 ms CPU
                  /pinned-block?ms=N          blocks N ms while pinned to its carrier thread
                  /unpinned-block?ms=N        blocks N ms without pinning (the control)
                """;
    }

    static void sleep(Duration d) throws IOException {
        if (d.isZero()) {
            return;
        }
        try {
            Thread.sleep(d);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while waiting " + d.toMillis() + " ms");
        }
    }

    private static byte[] filler(int size) {
        byte[] b = new byte[size];
        Arrays.fill(b, (byte) 'x');
        return b;
    }

    /** Closes the database pool and stops the bundled database, if they were started. */
    @Override
    public void close() {
        database.close();
    }
}
