package io.loomgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.testkit.JarProcess;
import io.loomgate.testkit.TestOrigin;
import java.net.InetAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The JDK's own resolver path, end to end, in the packaged gateway: its host names come from a hosts file
 * ({@code -Djdk.net.hosts.file}, which the JDK reads on every lookup) that the test rewrites. A name's new address
 * takes the traffic within seconds, which also shows the gateway capped the JDK's 30 s lookup cache.
 */
class DnsHostsFileIT {
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private static void write(Path file, String text) throws Exception {
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        Files.writeString(tmp, text);
        Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }

    private String body(int port) {
        try {
            return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/who"))
                    .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString()).body();
        } catch (Exception e) {
            return e.toString();
        }
    }

    @Test
    void aNamesNewAddressTakesTheTrafficWithinSecondsThroughTheJdksResolver(@TempDir Path dir) throws Exception {
        try (TestOrigin two = TestOrigin.at(InetAddress.getByName("127.0.0.2"), 0);
             TestOrigin three = TestOrigin.at(InetAddress.getByName("127.0.0.3"), two.port())) {
            two.fallback(r -> TestOrigin.Reply.ok("two"));
            three.fallback(r -> TestOrigin.Reply.ok("three"));
            Path hosts = dir.resolve("hosts");
            write(hosts, "127.0.0.1 localhost\n127.0.0.2 svc.test\n");
            Path yaml = dir.resolve("gateway.yaml");
            write(yaml, """
                    server:
                      address: 127.0.0.1
                      port: 0
                    admin:
                      port: 0
                    access-log:
                      enabled: false
                    routes:
                      - id: api
                        uri: http://svc.test:%d
                        dns-refresh: 300ms
                        predicates: [ "Path=/**" ]
                    """.formatted(two.port()));
            try (JarProcess gw = JarProcess.start(JarProcess.gatewayJar(),
                    List.of("-Xmx128m", "-Djdk.net.hosts.file=" + hosts),
                    List.of("serve", "--config", yaml.toString()), Map.of())) {
                int port = gw.awaitListening(Duration.ofSeconds(30));
                assertThat(body(port)).isEqualTo("two");

                write(hosts, "127.0.0.1 localhost\n127.0.0.3 svc.test\n");
                long start = System.nanoTime();
                String seen = body(port);
                while (!seen.equals("three") && System.nanoTime() - start < Duration.ofSeconds(15).toNanos()) {
                    LockSupport.parkNanos(50_000_000);
                    seen = body(port);
                }
                Duration took = Duration.ofNanos(System.nanoTime() - start);
                assertThat(seen).as("the new address serves").isEqualTo("three");
                // The JDK's default cache would hold the old answer for 30 s; the gateway caps it at 1 s.
                assertThat(took).as("within the refresh plus the capped cache, not the JDK's 30 s")
                        .isLessThan(Duration.ofSeconds(15));
                assertThat(gw.output()).contains("upstream host 'svc.test' now resolves to [127.0.0.3]");
            }
        }
    }
}
