package io.loomgate.lab.load;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

/** The latency summary read from a histogram of microseconds matches the percentiles of known distributions. */
class LatencyPercentilesTest {

    private static Histogram histogram() {
        return new Histogram(LoadRun.HIGHEST_MICROS, 3);
    }

    @Test
    void uniformDistributionHasLinearPercentiles() {
        Histogram h = histogram();
        for (long us = 1; us <= 100_000; us++) {
            h.recordValue(us);
        }
        LoadResult.Latency l = LoadResult.Latency.ofMicros(h);
        // 3 significant digits: each value within 0.1% of the exact percentile.
        assertThat(l.p50()).isCloseTo(50.0, within(0.05));
        assertThat(l.p90()).isCloseTo(90.0, within(0.09));
        assertThat(l.p99()).isCloseTo(99.0, within(0.1));
        assertThat(l.p999()).isCloseTo(99.9, within(0.1));
        assertThat(l.max()).isCloseTo(100.0, within(0.1));
        assertThat(l.mean()).isCloseTo(50.0, within(0.05));
    }

    @Test
    void exponentialDistributionMatchesItsQuantileFunction() {
        // Values at the quantiles (i + 0.5) / n of an exponential distribution with a mean of 10 ms:
        // its p-quantile is -10 ms * ln(1 - p).
        Histogram h = histogram();
        int n = 200_000;
        for (int i = 0; i < n; i++) {
            double q = (i + 0.5) / n;
            h.recordValue(Math.round(-10_000 * Math.log(1 - q)));
        }
        LoadResult.Latency l = LoadResult.Latency.ofMicros(h);
        assertThat(l.p50()).isCloseTo(10 * Math.log(2), within(0.01));
        assertThat(l.p90()).isCloseTo(10 * Math.log(10), within(0.03));
        assertThat(l.p99()).isCloseTo(10 * Math.log(100), within(0.05));
        assertThat(l.p999()).isCloseTo(10 * Math.log(1000), within(0.08));
        assertThat(l.mean()).isCloseTo(10.0, within(0.02));
    }

    @Test
    void aSingleOutlierMovesOnlyTheMaxAndTheTopPercentile() {
        Histogram h = histogram();
        for (int i = 0; i < 999; i++) {
            h.recordValue(1_000);
        }
        h.recordValue(2_000_000);
        LoadResult.Latency l = LoadResult.Latency.ofMicros(h);
        assertThat(l.p50()).isCloseTo(1.0, within(0.001));
        assertThat(l.p99()).isCloseTo(1.0, within(0.001));
        assertThat(l.max()).isCloseTo(2000.0, within(2.0));
    }

    @Test
    void anEmptyHistogramSummarisesToZeros() {
        assertThat(LoadResult.Latency.ofMicros(histogram())).isEqualTo(new LoadResult.Latency(0, 0, 0, 0, 0, 0));
    }
}
