package io.loomgate.lab.load;

/**
 * A once-a-second view of a run in progress.
 *
 * @param phase          {@code warmup} or {@code measure}
 * @param elapsedSeconds time since the phase began
 * @param totalSeconds   length of the phase, 0 when it runs for a number of requests
 * @param requests       responses recorded so far in the measured window
 * @param errors         errors so far in the measured window
 * @param recentRps      responses per second over the last interval (any phase)
 * @param recentP99Ms    p99 latency over the last interval, ms
 */
public record Progress(String phase, double elapsedSeconds, double totalSeconds, long requests, long errors,
                       double recentRps, double recentP99Ms) {

    /** One line for a terminal. */
    public String line() {
        String of = totalSeconds > 0 ? String.format("/%.0fs", totalSeconds) : "s";
        return String.format("%-7s %4.0f%s  %,10.0f req/s  p99 %8.2f ms  requests %,d  errors %,d", phase,
                elapsedSeconds, of, recentRps, recentP99Ms, requests, errors);
    }
}
