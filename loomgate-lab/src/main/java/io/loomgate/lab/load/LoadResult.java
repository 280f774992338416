package io.loomgate.lab.load;

import org.HdrHistogram.Histogram;

/**
 * What one load run measured. Latencies are in milliseconds; in the open model {@code latencyMs} is timed from each
 * request's intended start (corrected for coordinated omission) and {@code uncorrectedLatencyMs} from the moment it
 * was actually sent; in the closed model both are the same.
 *
 * @param url                  the URL loaded
 * @param connections          connections used
 * @param connectionsServed    connections that got at least one response counted in the window: fewer than
 *                             {@code connections} means some were starved (a server that holds a thread per
 *                             connection serves only as many connections as it has threads)
 * @param targetRate           open model rate asked (requests/s), 0 for the closed model
 * @param requests             responses received in the measured window (any status)
 * @param errors               failures by kind
 * @param requestsPerSecond    requests / wallSeconds
 * @param bytesPerSecond       bytes read from the sockets (heads and bodies) / wallSeconds
 * @param latencyMs            latency percentiles of the responses
 * @param uncorrectedLatencyMs latency from the actual send time
 * @param wallSeconds          length of the measured window
 */
public record LoadResult(String url, int connections, int connectionsServed, double targetRate, long requests,
                         Errors errors, double requestsPerSecond, double bytesPerSecond, Latency latencyMs,
                         Latency uncorrectedLatencyMs, double wallSeconds) {

    /**
     * Failures by kind, as wrk counts them.
     *
     * @param connect connection attempts that failed or timed out
     * @param timeout responses not complete within the timeout (the connection is then closed)
     * @param reset   connections closed, reset or sent a malformed response mid-exchange
     * @param status  complete responses whose status is not 2xx (they are also counted in requests)
     */
    public record Errors(long connect, long timeout, long reset, long status) {
        public static final Errors NONE = new Errors(0, 0, 0, 0);

        public long total() {
            return connect + timeout + reset + status;
        }
    }

    /** Latency percentiles in milliseconds. */
    public record Latency(double p50, double p90, double p99, double p999, double max, double mean) {

        /** Summarises a histogram of microsecond values; all zeros when it is empty. */
        public static Latency ofMicros(Histogram h) {
            if (h.getTotalCount() == 0) {
                return new Latency(0, 0, 0, 0, 0, 0);
            }
            return new Latency(ms(h.getValueAtPercentile(50)), ms(h.getValueAtPercentile(90)),
                    ms(h.getValueAtPercentile(99)), ms(h.getValueAtPercentile(99.9)), ms(h.getMaxValue()),
                    Math.round(h.getMean()) / 1000.0);
        }

        private static double ms(long micros) {
            return micros / 1000.0;
        }
    }
}
