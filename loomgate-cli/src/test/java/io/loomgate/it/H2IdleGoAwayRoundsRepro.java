package io.loomgate.it;

import io.loomgate.cli.Gateway;
import io.loomgate.config.ConfigLoader;
import io.loomgate.server.Listener;
import io.loomgate.server.ServerExchange;
import io.loomgate.testkit.TestPki;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

/** Session 55's h2goaway reproduction (not for CI): the h2 listener origin's idle GOAWAY case, many rounds. */
class H2IdleGoAwayRoundsRepro {
    private static final byte[] BODY = "a body the origin must see once".repeat(100).getBytes(StandardCharsets.UTF_8);
    private static final AtomicInteger seen = new AtomicInteger();

    private static void handle(ServerExchange x) throws IOException {
        byte[] body = x.requestBody().readAllBytes();
        seen.incrementAndGet();
        x.respond(200, "ok " + body.length);
    }

    @Test
    void rounds() throws Exception {
        int rounds = Integer.getInteger("repro.rounds", 0);
        if (rounds == 0) {
            return;
        }
        TestPki pki = TestPki.create("repro CA");
        TestPki.Issued cert = pki.issue("idle-origin", "localhost", "localhost");
        AtomicInteger open = new AtomicInteger();
        Listener l = IdleClosingListener.start(IdleClosingListener.tls(cert, List.of("h2", "http/1.1")),
                Duration.ofMillis(200), true, H2IdleGoAwayRoundsRepro::handle, open);
        String y = "server:\n  address: 127.0.0.1\n  port: 0\n  transport: " + System.getProperty("repro.transport", "jdk")
                + "\nadmin:\n  port: 0\nupstream:\n  http2: true\n  connect-timeout: 10s\n  ssl:\n"
                + "    trust-certificate: " + pki.caCert() + "\n    provider: jdk\nroutes:\n  - id: o\n"
                + "    uri: https://localhost:" + l.port() + "\n    predicates: [ \"Path=/**\" ]\n"
                + (Boolean.getBoolean("repro.retry") ? "    filters: [ \"Retry=1\" ]\n" : "");
        HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        int failed = 0;
        try (Gateway gw = Gateway.start(ConfigLoader.parse(y, "repro.yaml", Map.of()), Gateway.Observers.NONE)) {
            for (int r = 0; r < rounds; r++) {
                URI u = URI.create("http://127.0.0.1:" + gw.port() + "/x" + r);
                while (open.get() > 0) {
                    LockSupport.parkNanos(1_000_000); // the last round's connection gone: each round a fresh one
                }
                client.send(HttpRequest.newBuilder(u).GET().build(), HttpResponse.BodyHandlers.ofString());
                if (Boolean.getBoolean("repro.sweep")) {
                    // the next request crosses the origin's idle close: sent 180..230 ms after the answer
                    LockSupport.parkNanos(180_000_000L + (r % 100) * 500_000L);
                } else {
                    while (open.get() > 0) {
                        LockSupport.parkNanos(1_000_000);
                    }
                    LockSupport.parkNanos(Duration.ofMillis(Integer.getInteger("repro.gapMillis", 100)).toNanos());
                }
                HttpResponse<String> next = client.send(HttpRequest.newBuilder(u)
                        .POST(HttpRequest.BodyPublishers.ofByteArray(BODY)).build(),
                        HttpResponse.BodyHandlers.ofString());
                if (next.statusCode() != 200) {
                    failed++;
                    System.out.println("REPRO round " + r + ": " + next.statusCode() + " " + next.body());
                }
            }
        } finally {
            l.close();
        }
        System.out.println("REPRO " + rounds + " rounds, " + failed + " failed, origin saw " + seen.get());
    }
}
