package io.loomgate.lab.backend;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.threads.ThreadModel;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * /db: the bundled PostgreSQL answers the 50 ms query (this starts a real server, as 'nobody' when run as root),
 * and an unreachable --jdbc-url gives a 503 that says why, without touching the other endpoints.
 */
class DatabaseEndpointTest {

    private static HttpResponse<String> get(MockBackend backend, String path) throws Exception {
        try (HttpClient client = HttpClient.newHttpClient()) {
            return client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + backend.port() + path))
                    .timeout(Duration.ofSeconds(60)).build(), HttpResponse.BodyHandlers.ofString());
        }
    }

    @Test
    void theBundledDatabaseAnswersTheQuery() throws Exception {
        try (MockBackend backend = MockBackend.start(BackendSettings.defaults("127.0.0.1", 0))) {
            HttpResponse<String> r = get(backend, "/db");
            assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
            long queryMicros = Long.parseLong(r.body().replaceAll(".*\"queryMicros\":(\\d+).*\\s*", "$1"));
            assertThat(queryMicros).isGreaterThanOrEqualTo(50_000);
        }
    }

    @Test
    void anUnreachableDatabaseIsA503ThatSaysWhy() throws Exception {
        BackendSettings settings = new BackendSettings("127.0.0.1", 0, ThreadModel.VIRTUAL, Duration.ofMillis(1),
                "jdbc:postgresql://127.0.0.1:1/none", 2, false)
                // a closed port stays closed: the default 10 s of retries would be the test's whole time
                .withDbStartTimeout(Duration.ofMillis(500));
        try (MockBackend backend = MockBackend.start(settings)) {
            HttpResponse<String> r = get(backend, "/db");
            assertThat(r.statusCode()).isEqualTo(503);
            assertThat(r.body()).contains("cannot connect to jdbc:postgresql://127.0.0.1:1/none", "--jdbc-url");
            assertThat(get(backend, "/hello").statusCode()).isEqualTo(200);
        }
    }
}
