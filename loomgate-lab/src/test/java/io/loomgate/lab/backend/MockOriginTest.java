package io.loomgate.lab.backend;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.threads.ThreadModel;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Every endpoint of the mock origin, over real sockets on the project's own server core. */
class MockOriginTest {
    private static MockBackend backend;
    private static HttpClient client;

    @BeforeAll
    static void start() throws IOException {
        backend = MockBackend.start(BackendSettings.defaults("127.0.0.1", 0).withLatency(Duration.ofMillis(50)));
        client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    }

    @AfterAll
    static void stop() {
        backend.close();
        client.close();
    }

    private static URI uri(String path) {
        return URI.create("http://127.0.0.1:" + backend.port() + path);
    }

    private static HttpResponse<String> get(String path) throws Exception {
        return client.send(HttpRequest.newBuilder(uri(path)).build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void helloIsTwelveBytes() throws Exception {
        HttpResponse<byte[]> r = client.send(HttpRequest.newBuilder(uri("/hello")).build(),
                HttpResponse.BodyHandlers.ofByteArray());
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(new String(r.body(), StandardCharsets.US_ASCII)).isEqualTo("Hello World!");
        assertThat(r.headers().firstValue("Content-Length")).hasValue("12");
    }

    @Test
    void apiDataWaitsTheConfiguredLatencyOrTheAskedDelay() throws Exception {
        long t0 = System.nanoTime();
        HttpResponse<String> r = get("/api/data");
        long tookMs = (System.nanoTime() - t0) / 1_000_000;
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.body()).contains("\"data\"");
        assertThat(tookMs).isGreaterThanOrEqualTo(50);

        t0 = System.nanoTime();
        assertThat(get("/api/data?delay=200").statusCode()).isEqualTo(200);
        assertThat((System.nanoTime() - t0) / 1_000_000).isGreaterThanOrEqualTo(200);
    }

    @Test
    void blockingWaitsThatManySeconds() throws Exception {
        long t0 = System.nanoTime();
        HttpResponse<String> r = get("/blocking/1");
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat((System.nanoTime() - t0) / 1_000_000).isGreaterThanOrEqualTo(1000);
    }

    @Test
    void bytesStreamsExactlyNBytesWithALength() throws Exception {
        HttpResponse<byte[]> r = client.send(HttpRequest.newBuilder(uri("/bytes/300000")).build(),
                HttpResponse.BodyHandlers.ofByteArray());
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.headers().firstValue("Content-Length")).hasValue("300000");
        assertThat(r.body()).hasSize(300_000);
        assertThat(get("/bytes/0").body()).isEmpty();
    }

    @Test
    void echoSendsAFixedLengthBodyBackWithItsLength() throws Exception {
        byte[] body = "x".repeat(100_000).getBytes(StandardCharsets.US_ASCII);
        HttpResponse<byte[]> r = client.send(HttpRequest.newBuilder(uri("/echo"))
                .header("Content-Type", "text/plain").POST(HttpRequest.BodyPublishers.ofByteArray(body)).build(),
                HttpResponse.BodyHandlers.ofByteArray());
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.headers().firstValue("Content-Length")).hasValue("100000");
        assertThat(r.headers().firstValue("Content-Type")).hasValue("text/plain");
        assertThat(r.body()).isEqualTo(body);
    }

    @Test
    void echoSendsAChunkedBodyBackChunked() throws Exception {
        byte[] body = "chunk-".repeat(5000).getBytes(StandardCharsets.US_ASCII);
        // A publisher of unknown length makes the client send chunked.
        HttpResponse<byte[]> r = client.send(HttpRequest.newBuilder(uri("/echo"))
                .POST(HttpRequest.BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(body))).build(),
                HttpResponse.BodyHandlers.ofByteArray());
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.headers().firstValue("Transfer-Encoding")).hasValue("chunked");
        assertThat(r.body()).isEqualTo(body);
    }

    @Test
    void statusAnswersWithTheCodeAsked() throws Exception {
        assertThat(get("/status/503").statusCode()).isEqualTo(503);
        assertThat(get("/status/418").statusCode()).isEqualTo(418);
        HttpResponse<String> noContent = get("/status/204");
        assertThat(noContent.statusCode()).isEqualTo(204);
        assertThat(noContent.body()).isEmpty();
    }

    @Test
    void cpuBusiesItselfForTheTimeAsked() throws Exception {
        long t0 = System.nanoTime();
        HttpResponse<String> r = get("/cpu?ms=30");
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.body()).startsWith("burned 30 ms");
        assertThat((System.nanoTime() - t0) / 1_000_000).isGreaterThanOrEqualTo(30);
    }

    @Test
    void sseStreamsTheEventsAsked() throws Exception {
        HttpResponse<InputStream> r = client.send(HttpRequest.newBuilder(uri("/sse?events=3&interval=10")).build(),
                HttpResponse.BodyHandlers.ofInputStream());
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.headers().firstValue("Content-Type")).hasValue("text/event-stream");
        assertThat(r.headers().firstValue("Transfer-Encoding")).hasValue("chunked");
        String text = new String(r.body().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(text).isEqualTo("id: 0\ndata: event 0\n\nid: 1\ndata: event 1\n\nid: 2\ndata: event 2\n\n");
    }

    @Test
    void threadInfoTellsTimesAndTheVirtualThread() throws Exception {
        HttpResponse<String> r = get("/threadinfo?sent=12345&delay=20");
        List<String> lines = r.body().lines().toList();
        assertThat(lines).contains("sent: 12345", "virtual: true");
        long started = Long.parseLong(value(lines, "started"));
        long completed = Long.parseLong(value(lines, "completed"));
        assertThat(completed - started).isGreaterThanOrEqualTo(20);
        assertThat(value(lines, "thread")).isNotBlank();
    }

    @Test
    void pinnedAndUnpinnedBlocksBothAnswerAfterTheirWait() throws Exception {
        long t0 = System.nanoTime();
        HttpResponse<String> pinned = get("/pinned-block?ms=30");
        assertThat((System.nanoTime() - t0) / 1_000_000).isGreaterThanOrEqualTo(30);
        assertThat(pinned.statusCode()).isEqualTo(200);
        assertThat(pinned.body()).startsWith("pinned (");
        HttpResponse<String> unpinned = get("/unpinned-block?ms=30");
        assertThat(unpinned.statusCode()).isEqualTo(200);
        assertThat(unpinned.body()).startsWith("unpinned for");
    }

    @Test
    void badParametersGetA400ThatSaysWhy() throws Exception {
        HttpResponse<String> r = get("/bytes/lots");
        assertThat(r.statusCode()).isEqualTo(400);
        assertThat(r.body()).contains("/bytes/{n}", "'lots'");
        assertThat(get("/status/99").statusCode()).isEqualTo(400);
        assertThat(get("/api/data?delay=-1").body()).contains("delay must be in");
    }

    @Test
    void unknownPathsGet404AndTheIndexListsTheEndpoints() throws Exception {
        assertThat(get("/nothing-here").statusCode()).isEqualTo(404);
        assertThat(get("/").body()).contains("/hello", "/db", "/ws", "/pinned-block");
    }

    @Test
    void theThreadModelIsTheOneAsked() throws Exception {
        try (MockBackend platform = MockBackend.start(BackendSettings.defaults("127.0.0.1", 0)
                .withThreads(new ThreadModel.Platform(2)))) {
            HttpResponse<String> r = client.send(HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + platform.port() + "/threadinfo")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(r.body()).contains("virtual: false");
        }
    }

    private static String value(List<String> lines, String key) {
        return lines.stream().filter(l -> l.startsWith(key + ": ")).map(l -> l.substring(key.length() + 2))
                .collect(Collectors.joining());
    }
}
