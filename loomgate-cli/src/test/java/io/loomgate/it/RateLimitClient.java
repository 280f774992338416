package io.loomgate.it;

import io.loomgate.testkit.RawClient;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/** Sends requests with an API key on one keep-alive connection and keeps what came back, for the rate-limit tests. */
final class RateLimitClient implements AutoCloseable {
    private final RawClient raw;

    RateLimitClient(int port) throws IOException {
        this.raw = new RawClient(port);
    }

    /** One GET; {@code apiKey} null sends no X-Api-Key. */
    RawClient.Response get(String path, String apiKey) throws IOException {
        raw.send("GET " + path + " HTTP/1.1\r\nHost: gw\r\n" + (apiKey == null ? "" : "X-Api-Key: " + apiKey + "\r\n")
                + "\r\n");
        return raw.read();
    }

    List<RawClient.Response> burst(String path, String apiKey, int n) throws IOException {
        List<RawClient.Response> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add(get(path, apiKey));
        }
        return out;
    }

    static long count(List<RawClient.Response> responses, int status) {
        return responses.stream().filter(r -> r.status() == status).count();
    }

    @Override
    public void close() throws IOException {
        raw.close();
    }
}
