package io.loomgate.testkit;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Exempts a test (method or class) from {@link UnexpectedExceptionCheck}: it provokes an unexpected exception on
 * purpose (e.g. a filter that throws, to see the 500 it gets) and asserts on the outcome itself.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.TYPE, ElementType.METHOD})
public @interface ProvokesUnexpectedException {
    /** Why the test provokes one. */
    String value();
}
