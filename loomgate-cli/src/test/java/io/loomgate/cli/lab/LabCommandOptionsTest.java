package io.loomgate.cli.lab;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.loomgate.cli.DurationConverter;
import io.loomgate.lab.load.LoadSpec;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** The lab commands read their options as documented: durations with units, curl-like request options. */
class LabCommandOptionsTest {

    @Test
    void durationsTakeTheUsualUnits() {
        assertThat(DurationConverter.parse("250ms")).isEqualTo(Duration.ofMillis(250));
        assertThat(DurationConverter.parse("10s")).isEqualTo(Duration.ofSeconds(10));
        assertThat(DurationConverter.parse("1.5s")).isEqualTo(Duration.ofMillis(1500));
        assertThat(DurationConverter.parse("2m")).isEqualTo(Duration.ofMinutes(2));
        assertThat(DurationConverter.parse("1h")).isEqualTo(Duration.ofHours(1));
        assertThatThrownBy(() -> DurationConverter.parse("10")).hasMessageContaining("like 250ms, 10s");
        assertThatThrownBy(() -> DurationConverter.parse("ten seconds")).hasMessageContaining("'ten seconds'");
    }

    @Test
    void loadReadsCurlLikeRequestOptions() throws Exception {
        LoadCommand load = new LoadCommand();
        new CommandLine(load).parseArgs("http://127.0.0.1:8081/echo?x=1", "-c", "7", "-d", "3s", "--warmup", "1s",
                "-H", "X-A: 1", "-H", "X-B:two", "--data", "hello", "-R", "500", "--timeout", "250ms");
        LoadSpec spec = load.spec();
        assertThat(spec.method()).isEqualTo("POST");
        assertThat(spec.requestTarget()).isEqualTo("/echo?x=1");
        assertThat(spec.port()).isEqualTo(8081);
        assertThat(spec.connections()).isEqualTo(7);
        assertThat(spec.duration()).isEqualTo(Duration.ofSeconds(3));
        assertThat(spec.warmup()).isEqualTo(Duration.ofSeconds(1));
        assertThat(spec.headers()).containsExactly(Map.entry("X-A", "1"), Map.entry("X-B", "two"));
        assertThat(new String(spec.body())).isEqualTo("hello");
        assertThat(spec.openModel()).isTrue();
        assertThat(spec.timeout()).isEqualTo(Duration.ofMillis(250));
    }

    @Test
    void loadRefusesAHeaderWithoutAColon() {
        LoadCommand load = new LoadCommand();
        new CommandLine(load).parseArgs("http://127.0.0.1/", "-H", "NoColon");
        assertThatThrownBy(load::spec).hasMessageContaining("'Name: value'").hasMessageContaining("NoColon");
    }

    @Test
    void loadRefusesANonHttpUrl() {
        LoadCommand load = new LoadCommand();
        new CommandLine(load).parseArgs("ftp://example/");
        assertThatThrownBy(load::spec).hasMessageContaining("http://host[:port]/path");
    }

    @Test
    void benchAndBackendCommandsParseTheirDefaults() {
        BenchCommand bench = new BenchCommand();
        new CommandLine(bench).parseArgs("proxy", "pinning", "--hello-connections", "1,2");
        assertThat(bench.scenarios).containsExactly("proxy", "pinning");
        assertThat(bench.connections).isEqualTo(2000);
        assertThat(bench.duration).isEqualTo(Duration.ofSeconds(6));
        assertThat(bench.helloConnections).containsExactly(1, 2);

        BackendCommand backend = new BackendCommand();
        new CommandLine(backend).parseArgs("--threads", "platform:8", "--latency", "20ms");
        assertThat(backend.port).isEqualTo(8081);
        assertThat(backend.threads).isEqualTo("platform:8");
        assertThat(backend.latency).isEqualTo(Duration.ofMillis(20));
        assertThat(backend.dbPool).isEqualTo(10);
    }
}
