package io.loomgate.observe;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.testkit.PrometheusText;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** What the composition root gets from one call: every meter family registered, listeners that feed them. */
class GatewayTelemetryTest {

    @Test
    void startsMetricsMonitorAndAccessLogAsConfigured() throws Exception {
        GatewayTelemetry telemetry = GatewayTelemetry.start(
                new GatewayTelemetry.Settings(AccessLogFormat.JSON, 100, Duration.ofMillis(20)));
        try {
            telemetry.exchangeListener().exchangeEnd(FakeExchange.ok("users", "GET", 200, 2));
            PrometheusText s = new PrometheusText(telemetry.metrics().scrape(null).body());
            assertThat(s.value("loomgate_requests_total", "route=users", "method=GET", "status=2xx")).isEqualTo(1);
            assertThat(s.has("loomgate_virtual_threads")).isTrue();
            assertThat(s.has("loomgate_pinned_events_total")).isTrue();
            assertThat(s.has("loomgate_access_log_queued")).isTrue();
            assertThat(s.has("jvm_memory_used_bytes")).isTrue();
            assertThat(telemetry.poolListener()).isSameAs(telemetry.metrics());
            assertThat(telemetry.connectionListener()).isSameAs(telemetry.metrics());
        } finally {
            telemetry.close();
        }
    }

    @Test
    void theJvmMetricsWaitForTheRestOfTheStartOrTheFirstScrape() throws Exception {
        GatewayTelemetry telemetry = GatewayTelemetry.start(new GatewayTelemetry.Settings(null, 1, null));
        try {
            assertThat(telemetry.metrics().registry().find("jvm.memory.used").meters()).as("at start").isEmpty();
            telemetry.startRestNow();
            assertThat(telemetry.metrics().registry().find("jvm.memory.used").meters()).isNotEmpty();
            int meters = telemetry.metrics().registry().getMeters().size();
            telemetry.startRestNow();
            assertThat(telemetry.metrics().registry().getMeters()).as("bound once").hasSize(meters);
        } finally {
            telemetry.close();
        }
        GatewayTelemetry scraped = GatewayTelemetry.start(new GatewayTelemetry.Settings(null, 1, null));
        try {
            assertThat(new PrometheusText(scraped.metrics().scrape(null).body()).has("jvm_memory_used_bytes"))
                    .as("a scrape before the rest of the start").isTrue();
        } finally {
            scraped.close();
        }
    }

    @Test
    void nothingStartsOnceClosed() {
        GatewayTelemetry telemetry = GatewayTelemetry.start(new GatewayTelemetry.Settings(null, 1,
                Duration.ofMillis(20)));
        telemetry.close();
        telemetry.startRestNow();
        assertThat(telemetry.metrics().registry().find("jvm.memory.used").meters()).isEmpty();
    }

    @Test
    void withoutAccessLogOrMonitorOnlyTheMetricsListen() throws Exception {
        GatewayTelemetry telemetry = GatewayTelemetry.start(new GatewayTelemetry.Settings(null, 1, null));
        try {
            assertThat(telemetry.exchangeListener()).isSameAs(telemetry.metrics());
            PrometheusText s = new PrometheusText(telemetry.metrics().scrape(null).body());
            assertThat(s.has("loomgate_virtual_threads")).isFalse();
            assertThat(s.has("loomgate_access_log_queued")).isFalse();
        } finally {
            telemetry.close();
        }
    }
}
