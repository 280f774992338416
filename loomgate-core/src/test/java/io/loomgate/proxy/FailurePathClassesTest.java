package io.loomgate.proxy;

import static org.assertj.core.api.Assertions.assertThatCode;

import org.junit.jupiter.api.Test;

/** The failure path's classes initialise without error (a failure here would fail the proxy's own initialisation). */
class FailurePathClassesTest {
    @Test
    void everyClassNamedThereLoadsAndInitialises() {
        assertThatCode(FailurePathClasses::initialise).doesNotThrowAnyException();
    }
}
