package io.loomgate.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.loomgate.cli.ServedGateway;
import io.loomgate.config.ConfigException;
import io.loomgate.config.ConfigLoader;
import io.loomgate.config.GatewayConfig;
import io.loomgate.config.Plugins;
import io.loomgate.testkit.FreePorts;
import io.loomgate.testkit.RawClient;
import io.loomgate.testkit.RunningGateway;
import io.loomgate.testkit.TestOrigin;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Issue 38 part 2: the admin listener on real sockets, locked. A token guards everything but the probes; a Host that
 * is not an IP, localhost, the bind address or an allowed name is refused (DNS rebinding); a cross-origin or
 * non-JSON POST /reload is refused (a web page cannot reload the gateway); nothing may frame an admin page; the
 * probes are also on the main listener at admin.probe-path; a taken admin port names the key and the flag.
 */
class AdminLockTest {
    private static final String TOKEN = "0123456789abcdef0123456789abcdef";
    private static TestOrigin origin;
    private static ServedGateway gateway;

    @BeforeAll
    static void start() throws Exception {
        origin = new TestOrigin();
        // admin port 0 turns the listener off: a probed port, started again on another if lost before the bind
        gateway = FreePorts.start(admin -> ServedGateway.start(RunningGateway.onTransportUnderTest(config(admin)),
                Plugins.NONE));
    }

    private static GatewayConfig config(int adminPort) throws ConfigException {
        return ConfigLoader.parse("""
                server:
                  address: 127.0.0.1
                  port: 0
                admin:
                  address: 127.0.0.1
                  port: ${ADMIN_PORT}
                  auth-token: ${LOOMGATE_ADMIN_TOKEN}
                  allowed-hosts: [ admin.ops.example ]
                  probe-path: /.loomgate/health
                access-log:
                  enabled: false
                routes:
                  - { id: web, uri: "${ORIGIN}", predicates: [ "Path=/**" ] }
                """, "gateway.yaml", Map.of("ADMIN_PORT", Integer.toString(adminPort),
                "LOOMGATE_ADMIN_TOKEN", TOKEN, "ORIGIN", origin.uri()));
    }

    @AfterAll
    static void stop() throws Exception {
        if (gateway != null) {
            gateway.close();
        }
        if (origin != null) {
            origin.close();
        }
    }

    private static RawClient.Response admin(String request) throws Exception {
        try (RawClient c = new RawClient(gateway.adminPort())) {
            return c.send(request).read();
        }
    }

    private static String get(String path, String host, String... headerLines) {
        StringBuilder b = new StringBuilder("GET " + path + " HTTP/1.1\r\nHost: " + host + "\r\n");
        for (String h : headerLines) {
            b.append(h).append("\r\n");
        }
        return b.append("Connection: close\r\n\r\n").toString();
    }

    private String here() {
        return "127.0.0.1:" + gateway.adminPort();
    }

    @Test
    void everythingButTheProbesNeedsTheToken() throws Exception {
        for (String path : new String[] {"/", "/routes", "/threads", "/metrics", "/api/stats", "/pinned", "/reload"}) {
            RawClient.Response r = admin(get(path, here()));
            assertThat(r.status()).as(path).isEqualTo(401);
            assertThat(r.headers("WWW-Authenticate")).as(path).anyMatch(c -> c.startsWith("Basic "))
                    .anyMatch(c -> c.startsWith("Bearer "));
            assertThat(r.bodyText()).doesNotContain("127.0.0.1:" + origin.port());
        }
        assertThat(admin(get("/routes", here(), "Authorization: Bearer " + TOKEN.replace('f', 'e'))).status())
                .as("a wrong token").isEqualTo(401);
        assertThat(admin(get("/routes", here(), "Authorization: Bearer " + TOKEN.substring(1))).status())
                .as("a shorter token").isEqualTo(401);
        assertThat(admin(get("/health/live", here())).status()).isEqualTo(200);
        assertThat(admin(get("/health/ready", here())).status()).isEqualTo(200);

        RawClient.Response routes = admin(get("/routes", here(), "Authorization: Bearer " + TOKEN));
        assertThat(routes.status()).isEqualTo(200);
        assertThat(routes.bodyText()).contains("\"web\"")
                .as("predicates as the config spells them (issue 38 part 4)").contains("\"Path=/**\"")
                .doesNotContain("PathPredicate[");
        String basic = Base64.getEncoder().encodeToString(("operator:" + TOKEN).getBytes(StandardCharsets.UTF_8));
        assertThat(admin(get("/", here(), "Authorization: Basic " + basic)).status())
                .as("the browser's own prompt (Basic, the token as password) opens the dashboard").isEqualTo(200);
    }

    @Test
    void aHostThatIsNotThisListenersIsRefused() throws Exception {
        String auth = "Authorization: Bearer " + TOKEN;
        RawClient.Response rebound = admin(get("/threads", "attacker.example:" + gateway.adminPort(), auth));
        assertThat(rebound.status()).isEqualTo(421);
        assertThat(rebound.bodyText()).contains("admin.allowed-hosts");
        assertThat(admin(get("/routes", "localhost:" + gateway.adminPort(), auth)).status()).isEqualTo(200);
        assertThat(admin(get("/routes", "[::1]:" + gateway.adminPort(), auth)).status()).isEqualTo(200);
        assertThat(admin(get("/routes", "ADMIN.ops.example", auth)).status()).as("an allowed name").isEqualTo(200);
    }

    @Test
    void aCrossOriginOrNonJsonPostCannotReload() throws Exception {
        String auth = "Authorization: Bearer " + TOKEN;
        RawClient.Response plain = admin("POST /reload HTTP/1.1\r\nHost: " + here() + "\r\n" + auth
                + "\r\nContent-Type: text/plain\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}");
        assertThat(plain.status()).isEqualTo(415);
        RawClient.Response crossOrigin = admin("POST /reload HTTP/1.1\r\nHost: " + here() + "\r\n" + auth
                + "\r\nOrigin: http://evil.example\r\nContent-Type: application/json\r\nContent-Length: 2\r\n"
                + "Connection: close\r\n\r\n{}");
        assertThat(crossOrigin.status()).isEqualTo(403);
        RawClient.Response crossSite = admin("POST /reload HTTP/1.1\r\nHost: " + here() + "\r\n" + auth
                + "\r\nSec-Fetch-Site: cross-site\r\nContent-Type: application/json\r\nContent-Length: 2\r\n"
                + "Connection: close\r\n\r\n{}");
        assertThat(crossSite.status()).isEqualTo(403);
        RawClient.Response same = admin("POST /reload HTTP/1.1\r\nHost: " + here() + "\r\n" + auth
                + "\r\nOrigin: http://" + here() + "\r\nContent-Type: application/json\r\nContent-Length: 2\r\n"
                + "Connection: close\r\n\r\n{}");
        assertThat(same.status()).as(same.bodyText()).isNotIn(401, 403, 405, 415, 421);
        RawClient.Response put = admin("PUT /routes HTTP/1.1\r\nHost: " + here() + "\r\n" + auth
                + "\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
        assertThat(put.status()).isEqualTo(405);
        assertThat(put.header("Allow")).isEqualTo("GET, HEAD");
    }

    @Test
    void noAdminPageCanBeFramed() throws Exception {
        RawClient.Response dashboard = admin(get("/", here(), "Authorization: Bearer " + TOKEN));
        assertThat(dashboard.header("X-Frame-Options")).isEqualTo("DENY");
        assertThat(dashboard.header("Content-Security-Policy")).isEqualTo("frame-ancestors 'none'");
        assertThat(admin(get("/routes", here())).header("X-Frame-Options")).as("refusals too").isEqualTo("DENY");
    }

    @Test
    void theProbesAreAlsoOnTheMainListenerAtTheProbePath() throws Exception {
        try (RawClient c = new RawClient(gateway.port())) {
            RawClient.Response live = c.send(get("/.loomgate/health/live", "app.example")).read();
            assertThat(live.status()).isEqualTo(200);
            assertThat(live.bodyText()).isEqualTo("live\n");
        }
        try (RawClient c = new RawClient(gateway.port())) {
            RawClient.Response ready = c.send(get("/.loomgate/health/ready", "app.example")).read();
            assertThat(ready.status()).isEqualTo(200);
            assertThat(ready.bodyText()).isEqualTo("ready\n");
        }
        assertThat(origin.requestCount()).as("the probes never reach the routes").isZero();
    }

    @Test
    void aTakenAdminPortSaysWhichKeyOrFlagChangesIt() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            assertThatThrownBy(() -> ServedGateway.start(config(taken.getLocalPort()), Plugins.NONE).close())
                    .hasMessageContaining("127.0.0.1:" + taken.getLocalPort())
                    .hasMessageContaining("change admin.port in gateway.yaml or pass --admin-port");
        }
    }

    @Test
    void aShortTokenIsRefusedWithTheKey() {
        assertThatThrownBy(() -> ConfigLoader.parse("admin:\n  auth-token: secret\nroutes: []\n", "gateway.yaml",
                Map.of())).isInstanceOf(ConfigException.class)
                .hasMessageContaining("gateway.yaml:2").hasMessageContaining("admin.auth-token")
                .hasMessageContaining("at least 32").hasMessageNotContaining("secret");
    }
}
