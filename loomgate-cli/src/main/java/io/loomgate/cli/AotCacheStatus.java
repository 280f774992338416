package io.loomgate.cli;

import org.slf4j.Logger;

/**
 * One start-up line on the JDK's AOT cache, in place of the JVM's own five lines of warnings and errors when a cache
 * does not fit (the image and the launcher pass {@code -Xlog:aot=off} with {@code -XX:AOTCache}). They name the
 * cache with {@code -Dloomgate.aot-cache=<file>}; the JVM reports sharing in {@code java.vm.info} only when a cache
 * or CDS archive is mapped, and with {@code -XX:AOTCache} given it maps nothing else, so "sharing" means this cache.
 */
final class AotCacheStatus {
    static final String PROPERTY = "loomgate.aot-cache";

    private AotCacheStatus() {
    }

    /** The line for this JVM, or null when no cache was named. */
    static String describe(String cache, String vmInfo) {
        if (cache == null || cache.isBlank()) {
            return null;
        }
        if (vmInfo != null && vmInfo.contains("sharing")) {
            return "AOT cache " + cache + ": in use";
        }
        return "AOT cache " + cache + ": not used (made by another JVM or with other JVM flags, e.g. "
                + "UseCompactObjectHeaders); starting without it, so start-up and warm-up are slower. "
                + "-Xlog:aot on the java command line says why";
    }

    static void log(Logger log) {
        String line = describe(System.getProperty(PROPERTY), System.getProperty("java.vm.info"));
        if (line == null) {
            return;
        }
        if (line.endsWith(": in use")) {
            log.info(line);
        } else {
            log.warn(line);
        }
    }
}
