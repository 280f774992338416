package io.loomgate.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.loomgate.observe.AccessLogFormat;
import io.loomgate.testkit.PrometheusText;
import io.loomgate.testkit.TestOrigin;
import io.loomgate.threads.ConnectionExecutors;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The dashboard in a real headless Chromium under load: the page's numbers move, and once the load stops they equal
 * what {@code /metrics} says. A screenshot taken under load goes to {@code target/dashboard.png}; run with
 * {@code -Dloomgate.dashboard.screenshot=docs/dashboard.png} to refresh the one the docs show.
 *
 * <p>Needs Debian's {@code chromium} ({@code apt-get install chromium}) or {@code LOOMGATE_CHROMIUM}; without one
 * the test is skipped with that message, so a CI without a browser stays green.
 */
class DashboardInBrowserTest {
    private static final Duration DEADLINE = Duration.ofSeconds(30);
    private static final int CLIENTS = 8;

    /** Sleeps in its initializer, so the virtual thread that loads it is pinned: the page then has one to show. */
    static final class SlowToInitialize {
        static {
            try {
                Thread.sleep(40);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        static void touch() {
        }
    }

    @Test
    void pageNumbersMoveUnderLoadAndMatchTheMetrics() throws Exception {
        Optional<Path> chromium = HeadlessChromium.find();
        assumeTrue(chromium.isPresent(), "no Chromium found (install Debian's 'chromium' or set LOOMGATE_CHROMIUM);"
                + " the dashboard browser test is skipped");

        try (TestOrigin origin = new TestOrigin();
             ObservedGateway gw = new ObservedGateway(origin.port(), AccessLogFormat.COMBINED,
                     "users", "/users", "orders", "/orders");
             HeadlessChromium browser = HeadlessChromium.start(chromium.get(), 1400, 1600)) {
            AtomicBoolean running = new AtomicBoolean(true);
            AtomicLong sent = new AtomicLong();
            List<Thread> load = startLoad(gw.port(), running, sent);

            browser.open(gw.adminUrl("/"));
            awaitTrue(() -> number(browser, "document.getElementById('total-rps').textContent") > 0,
                    "requests/s above zero on the page");
            double first = routeRequests(browser, "users");
            awaitTrue(() -> routeRequests(browser, "users") > first, "the users request count to move");
            // Pinned once the load runs and its classes are loaded: the page lists the ten newest pinned events,
            // and a load that starts after the pin can push it out (threads waiting on another's class
            // initialisation are pinned too).
            ConnectionExecutors.startVirtual("pinned-for-dashboard", SlowToInitialize::touch).join();
            try {
                awaitTrue(() -> text(browser, "document.querySelector('#pinned tbody').textContent")
                        .contains("pinned-for-dashboard"), "the pinned event in the page");
            } catch (AssertionError e) {
                throw new AssertionError(e.getMessage() + "; /pinned: " + gw.admin("/pinned").body(), e);
            }
            awaitTrue(() -> text(browser, "document.querySelector('#routes tbody').textContent")
                    .contains("Path=/users/**"), "the routes table");
            assertThat(number(browser, "document.getElementById('virtual-alive').textContent")).isPositive();
            // Ten seconds of history, so the screenshot's charts show lines rather than a first dot.
            awaitTrue(() -> number(browser, "history.total.length") >= 10, "ten seconds of chart history");
            Path screenshot = Path.of(System.getProperty("loomgate.dashboard.screenshot", "target/dashboard.png"));
            Files.createDirectories(screenshot.toAbsolutePath().getParent());
            Files.write(screenshot, browser.screenshotPng());

            running.set(false);
            for (Thread t : load) {
                t.join();
            }
            PrometheusText metrics = new PrometheusText(gw.admin("/metrics").body());
            double users = metrics.value("loomgate_requests_total", "route=users", "method=GET", "status=2xx");
            double orders = metrics.value("loomgate_requests_total", "route=orders", "method=GET", "status=2xx");
            assertThat(users + orders).isEqualTo(sent.get());
            awaitTrue(() -> routeRequests(browser, "users") == users && routeRequests(browser, "orders") == orders,
                    "the page to show the final counts " + users + " and " + orders);
        }
    }

    /** Clients on virtual threads, each on its own keep-alive connection, alternating the two routes. */
    private static List<Thread> startLoad(int port, AtomicBoolean running, AtomicLong sent) {
        List<Thread> threads = new ArrayList<>();
        for (int c = 0; c < CLIENTS; c++) {
            int client = c;
            threads.add(ConnectionExecutors.startVirtual("load-" + c, () -> {
                try (HttpClient http = HttpClient.newHttpClient()) {
                    for (long i = 0; running.get(); i++) {
                        String path = (i + client) % 3 == 0 ? "/orders/" + i : "/users/" + i;
                        HttpResponse<Void> r = http.send(HttpRequest.newBuilder(
                                        URI.create("http://127.0.0.1:" + port + path)).timeout(Duration.ofSeconds(10))
                                .build(), HttpResponse.BodyHandlers.discarding());
                        if (r.statusCode() == 200) {
                            sent.incrementAndGet();
                        }
                    }
                } catch (Exception e) {
                    throw new IllegalStateException("load client " + client + " failed", e);
                }
            }));
        }
        return threads;
    }

    private static double routeRequests(HeadlessChromium browser, String route) {
        return number(browser, "(document.querySelector('#route-stats tr[data-route=\"" + route
                + "\"] .requests') || {textContent: '-1'}).textContent");
    }

    private static double number(HeadlessChromium browser, String expression) {
        String t = text(browser, expression).trim();
        try {
            return Double.parseDouble(t);
        } catch (NumberFormatException e) {
            return Double.NaN;
        }
    }

    private static String text(HeadlessChromium browser, String expression) {
        try {
            JsonNode v = browser.evaluate(expression);
            return v.isMissingNode() || v.isNull() ? "" : v.asText();
        } catch (Exception e) {
            throw new AssertionError("evaluating " + expression, e);
        }
    }

    private interface Check {
        boolean holds() throws Exception;
    }

    /** Polls until the check holds; a check that throws (the page is still loading) counts as "not yet". */
    private static void awaitTrue(Check check, String what) throws Exception {
        long deadline = System.nanoTime() + DEADLINE.toNanos();
        Throwable last = null;
        while (true) {
            try {
                if (check.holds()) {
                    return;
                }
            } catch (AssertionError | IllegalStateException e) {
                last = e;
            }
            if (System.nanoTime() > deadline) {
                AssertionError failure = new AssertionError("not within " + DEADLINE + ": " + what);
                if (last != null) {
                    failure.initCause(last);
                }
                throw failure;
            }
            Thread.sleep(100);
        }
    }
}
