package io.loomgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.testkit.Jwts;
import io.loomgate.testkit.RunningGateway;
import io.loomgate.testkit.TestOrigin;
import io.loomgate.testkit.TestOrigin.Recorded;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** ApiKeyAuth: hashed keys from the config and a file, by header or query parameter; the key never goes upstream. */
class ApiKeyAuthTest {
    private static final String ALICE_KEY = "ak_live_4f9c2e7d1b8a6c3e5f0a9b2c";
    private static final String BOB_KEY = "ak_live_7e1d3c5b9a2f4e6d8c0b1a3f";

    @Test
    void knownKeysPassAsTheirNameAndTheKeyIsRemovedFromHeaderAndQuery(@TempDir Path dir) throws Exception {
        List<String> hashes = Jwts.sha256Hex(ALICE_KEY, BOB_KEY);
        Path file = Files.writeString(dir.resolve("keys.txt"), "# name: sha256 of the key\nbob: sha256:"
                + hashes.get(1) + "\n");
        String yaml = """
                routes:
                  - id: api
                    uri: ${ORIGIN}
                    predicates: [ "Path=/**" ]
                    filters:
                      - name: ApiKeyAuth
                        args:
                          query-param: api_key
                          keys: { alice: "sha256:${ALICE}" }
                          keys-file: ${FILE}
                          principal-header: X-Consumer
                """;
        try (TestOrigin origin = new TestOrigin();
             RunningGateway gw = RunningGateway.start(yaml, Map.of("ORIGIN", origin.uri(), "ALICE", hashes.get(0),
                     "FILE", file.toString()))) {
            HttpResponse<String> byHeader = gw.send(gw.request("/orders?x=1").header("X-Api-Key", ALICE_KEY)
                    .header("X-Consumer", "admin"));
            assertThat(byHeader.statusCode()).isEqualTo(200);
            Recorded a = origin.takeRequest();
            assertThat(a.headers("X-Consumer")).containsExactly("alice");
            assertThat(a.header("X-Api-Key")).isNull();
            assertThat(a.target()).isEqualTo("/orders?x=1");

            assertThat(gw.get("/orders?api_key=" + BOB_KEY + "&y=2").statusCode()).isEqualTo(200);
            Recorded b = origin.takeRequest();
            assertThat(b.header("X-Consumer")).isEqualTo("bob");
            assertThat(b.target()).isEqualTo("/orders?y=2");
        }
    }

    @Test
    void aMissingOrUnknownKeyIs401AndNeverReachesTheOrigin() throws Exception {
        String hash = Jwts.sha256Hex(ALICE_KEY).get(0);
        try (TestOrigin origin = new TestOrigin();
             RunningGateway gw = RunningGateway.to(origin, "filters:", "  - name: ApiKeyAuth",
                     "    args: { header: X-Key, keys: { alice: 'sha256:" + hash + "' } }")) {
            HttpResponse<String> none = gw.get("/");
            assertThat(none.statusCode()).isEqualTo(401);
            assertThat(none.headers().firstValue("WWW-Authenticate")).contains("ApiKey header=\"X-Key\"");
            assertThat(none.body()).contains("an API key is required");
            HttpResponse<String> wrong = gw.send(gw.request("/").header("X-Key", ALICE_KEY + "x"));
            assertThat(wrong.statusCode()).isEqualTo(401);
            assertThat(wrong.body()).contains("the API key is not valid");
            // The hash itself is not a key: knowing the config does not let anyone in.
            assertThat(gw.send(gw.request("/").header("X-Key", hash)).statusCode()).isEqualTo(401);
            assertThat(origin.requestCount()).isZero();
            assertThat(gw.send(gw.request("/").header("X-Key", ALICE_KEY)).statusCode()).isEqualTo(200);
        }
    }

    @Test
    void theKeysNameIsThePrincipalARateLimiterAfterItCounts() throws Exception {
        List<String> hashes = Jwts.sha256Hex(ALICE_KEY, BOB_KEY);
        try (TestOrigin origin = new TestOrigin();
             RunningGateway gw = RunningGateway.to(origin, "filters:", "  - name: ApiKeyAuth",
                     "    args: { keys: { alice: 'sha256:" + hashes.get(0) + "', bob: 'sha256:" + hashes.get(1)
                             + "' } }",
                     "  - name: RequestRateLimiter",
                     "    args: { replenish-rate: 1, burst-capacity: 2, key-resolver: principal }")) {
            // Alice empties her bucket (refills of one token a second may let a few more through on a slow machine).
            List<Integer> alice = new java.util.ArrayList<>();
            while (!alice.contains(429) && alice.size() < 50) {
                alice.add(gw.send(gw.request("/").header("X-Api-Key", ALICE_KEY)).statusCode());
            }
            assertThat(alice).contains(429).startsWith(200, 200);
            // Bob's key is another principal, so another bucket: full.
            assertThat(gw.send(gw.request("/").header("X-Api-Key", BOB_KEY)).statusCode()).isEqualTo(200);
        }
    }
}
