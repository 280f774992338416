package io.loomgate.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Dot-segments, written plainly or percent-encoded, anywhere in the path; dots inside names are no segment. */
class DotSegmentsTest {
    @ParameterizedTest
    @ValueSource(strings = {"/.", "/..", "/a/./b", "/a/../b", "/a/%2e%2E/b", "/a/%2E", "/a/.%2e", "/%2e/", "/a/..//",
        // an encoded slash or a backslash ends a segment too: origins that decode one or read '\\' as '/' resolve these
        "/a/..%2Fb", "/a/%2e%2e%2fb", "/a%2F..", "/a/..%5Cb", "/a/..\\b", "/a\\.\\b", "/a/.%5c"})
    void found(String path) {
        assertThat(DotSegments.present(path)).isTrue();
    }

    @ParameterizedTest
    @ValueSource(strings = {"/", "/hello", "/api/data", "/a%20b/c", "/a/%2f/b", "/a/%2e%2e%2e", "/a%2fb", "/a\\b",
        "/a/..x%2fb", "/.well-known/x", "/a..b", "/...", "/v1.2/x", "/a/%2ex"})
    void notFound(String path) {
        assertThat(DotSegments.present(path)).isFalse();
    }
}
