package io.loomgate.http;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Headers with no room made ahead (the empty trailers of every body without any) behave as any other. */
class HeadersTest {

    @Test
    void headersMadeWithNoRoomAreEmptyAndGrowAsFieldsComeInOrder() {
        Headers h = new Headers(0);
        assertThat(h.isEmpty()).isTrue();
        assertThat(h.first("grpc-status")).isNull();
        assertThat(h.remove("x")).isFalse();
        assertThat(h.all("x")).isEmpty();
        for (int i = 0; i < 9; i++) {
            h.add("x-" + i, "v" + i);
        }
        h.set("X-0", "first").add("x-1", "again");
        assertThat(h.size()).isEqualTo(10);
        assertThat(h.name(0)).isEqualTo("x-0");
        assertThat(h.value(0)).isEqualTo("first");
        assertThat(h.all("X-1")).containsExactly("v1", "again");
        assertThat(h.copy().first("x-8")).isEqualTo("v8");
    }

    @Test
    void aSetOnHeadersWithNoRoomAddsTheField() {
        Headers h = new Headers(0);
        h.set("Via", "1.1 loomgate");
        assertThat(h.size()).isEqualTo(1);
        assertThat(h.first("via")).isEqualTo("1.1 loomgate");
    }
}
