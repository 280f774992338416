package io.loomgate.lab.load;

import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What the load generator sends, how hard and for how long.
 *
 * @param target      an {@code http://host[:port]/path[?query]} URL
 * @param method      request method
 * @param headers     extra request fields, in order (Host and Content-Length are added when absent)
 * @param body        request body, empty for none
 * @param connections keep-alive connections, one virtual thread each
 * @param duration    how long to measure (ignored when {@code requests > 0})
 * @param requests    total requests to measure, 0 to run for {@code duration} instead
 * @param warmup      load sent before measuring, not recorded
 * @param rate        open model: requests per second across all connections, each timed from its intended start
 *                    (coordinated-omission correction); 0 for the closed model (send the next request when the
 *                    previous one is answered)
 * @param timeout     connect timeout, and the longest a response may take from sending the request to its last
 *                    byte (as wrk's timeout); an overdue response is counted as a timeout and its connection closed
 */
public record LoadSpec(URI target, String method, List<Map.Entry<String, String>> headers, byte[] body,
                       int connections, Duration duration, long requests, Duration warmup, double rate,
                       Duration timeout) {

    public LoadSpec {
        if (target == null || !"http".equals(target.getScheme()) || target.getHost() == null) {
            throw new IllegalArgumentException("expected an http://host[:port]/path URL, got '" + target + "'");
        }
        if (connections < 1) {
            throw new IllegalArgumentException("connections must be at least 1, got " + connections);
        }
        if (requests < 0) {
            throw new IllegalArgumentException("requests must be 0 (use the duration) or more, got " + requests);
        }
        if (requests == 0 && (duration == null || duration.isZero() || duration.isNegative())) {
            throw new IllegalArgumentException("give a positive duration or a number of requests");
        }
        if (rate < 0) {
            throw new IllegalArgumentException("rate must be 0 (closed model) or positive, got " + rate);
        }
        if (timeout == null || timeout.isZero() || timeout.isNegative()) {
            throw new IllegalArgumentException("timeout must be positive, got " + timeout);
        }
        method = method.toUpperCase(Locale.ROOT);
        headers = List.copyOf(headers);
        body = body == null ? new byte[0] : body.clone();
        warmup = warmup == null ? Duration.ZERO : warmup;
        duration = duration == null ? Duration.ZERO : duration;
    }

    /** A GET of this URL in the closed model, with a 5 s timeout and no warm-up. */
    public static LoadSpec get(String url, int connections, Duration duration) {
        return new LoadSpec(URI.create(url), "GET", List.of(), new byte[0], connections, duration, 0, Duration.ZERO,
                0, Duration.ofSeconds(5));
    }

    public boolean openModel() {
        return rate > 0;
    }

    public int port() {
        return target.getPort() < 0 ? 80 : target.getPort();
    }

    /** The origin-form request target: path and query, {@code /} when the URL has no path. */
    public String requestTarget() {
        String path = target.getRawPath() == null || target.getRawPath().isEmpty() ? "/" : target.getRawPath();
        return target.getRawQuery() == null ? path : path + "?" + target.getRawQuery();
    }

    public LoadSpec withConnections(int n) {
        return new LoadSpec(target, method, headers, body, n, duration, requests, warmup, rate, timeout);
    }

    public LoadSpec withRate(double requestsPerSecond) {
        return new LoadSpec(target, method, headers, body, connections, duration, requests, warmup,
                requestsPerSecond, timeout);
    }

    public LoadSpec withWarmup(Duration newWarmup) {
        return new LoadSpec(target, method, headers, body, connections, duration, requests, newWarmup, rate,
                timeout);
    }

    public LoadSpec withRequests(long n) {
        return new LoadSpec(target, method, headers, body, connections, duration, n, warmup, rate, timeout);
    }
}
