package io.loomgate.proxy;

import static org.assertj.core.api.Assertions.assertThatCode;

import org.junit.jupiter.api.Test;

/**
 * The failure path's classes named by string (package-private elsewhere) still exist: a rename would otherwise make
 * the proxy's class initialisation throw, every exchange with it.
 */
class FailurePathClassesTest {
    @Test
    void everyClassNamedThereLoadsAndInitialises() {
        assertThatCode(FailurePathClasses::initialise).doesNotThrowAnyException();
        for (String name : FailurePathClasses.BY_NAME) {
            assertThatCode(() -> Class.forName(name, true, FailurePathClasses.class.getClassLoader()))
                    .as(name).doesNotThrowAnyException();
        }
    }
}
