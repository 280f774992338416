package io.loomgate.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class GrpcTimeoutTest {

    @Test
    void everyUnitOfTheProtocolIsRead() {
        assertThat(GrpcTimeout.parseNanos("1H")).isEqualTo(3_600_000_000_000L);
        assertThat(GrpcTimeout.parseNanos("2M")).isEqualTo(120_000_000_000L);
        assertThat(GrpcTimeout.parseNanos("5S")).isEqualTo(5_000_000_000L);
        assertThat(GrpcTimeout.parseNanos("100m")).isEqualTo(100_000_000L);
        assertThat(GrpcTimeout.parseNanos("250u")).isEqualTo(250_000L);
        assertThat(GrpcTimeout.parseNanos("99999999n")).isEqualTo(99_999_999L);
        assertThat(GrpcTimeout.parseNanos("0m")).isZero();
    }

    @Test
    void theLongestValueSaturatesInsteadOfOverflowing() {
        assertThat(GrpcTimeout.parseNanos("99999999H")).isEqualTo(Long.MAX_VALUE);
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "m", "100", "100x", "100 m", " 100m", "-1S", "+1S", "123456789S", "1.5S", "1s", "0x10m"})
    void anythingElseIsRefusedWithAReason(String value) {
        assertThatThrownBy(() -> GrpcTimeout.parseNanos(value)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageMatching(".*(digit|unit).*");
    }

    @Test
    void aDeadlinePassedOnUsesTheFinestUnitThatFitsEightDigitsRoundedDown() {
        assertThat(GrpcTimeout.format(99_999_999L)).isEqualTo("99999999n");
        assertThat(GrpcTimeout.format(1_234_567_891L)).isEqualTo("1234567u");
        assertThat(GrpcTimeout.format(250_000_000_000L)).isEqualTo("250000m");
        assertThat(GrpcTimeout.format(0)).isEqualTo("1n");
        assertThat(GrpcTimeout.format(-5)).isEqualTo("1n");
        assertThat(GrpcTimeout.format(Long.MAX_VALUE)).matches("\\d{1,8}[MH]");
        for (long nanos : new long[] {1, 999, 123_456_789_012L, 86_400_000_000_000L}) {
            String v = GrpcTimeout.format(nanos);
            assertThat(v.length()).isLessThanOrEqualTo(9);
            assertThat(GrpcTimeout.parseNanos(v)).isLessThanOrEqualTo(nanos).isGreaterThan(nanos * 9 / 10 - 1);
        }
    }
}
