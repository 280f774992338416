package io.loomgate.threads;

/**
 * How connections get their threads: one virtual thread each (the default), a fixed pool of N platform threads (the
 * classic servlet-container model, where a connection holds its thread while idle), or an unbounded cached pool of
 * platform threads. The same code runs on all three; only the executor differs.
 */
public sealed interface ThreadModel {

    /** One new virtual thread per connection. */
    record Virtual() implements ThreadModel {
        @Override
        public String toString() {
            return "virtual";
        }
    }

    /** A fixed pool of {@code threads} platform threads; connections beyond it wait for a free thread. */
    record Platform(int threads) implements ThreadModel {
        /** The pool size of {@code platform} written without a size. */
        public static final int DEFAULT_THREADS = 200;

        public Platform {
            if (threads < 1) {
                throw new IllegalArgumentException("platform thread count must be at least 1, got " + threads);
            }
        }

        @Override
        public String toString() {
            return "platform:" + threads;
        }
    }

    /** An unbounded cached pool of platform threads (one per concurrent connection, reused when free). */
    record Cached() implements ThreadModel {
        @Override
        public String toString() {
            return "cached";
        }
    }

    ThreadModel VIRTUAL = new Virtual();

    /**
     * Parses {@code virtual}, {@code cached}, {@code platform} (200 threads), {@code platform:N} or {@code platform(N)}.
     *
     * @throws IllegalArgumentException naming what was expected
     */
    static ThreadModel parse(String text) {
        String t = text.trim().toLowerCase(java.util.Locale.ROOT);
        if (t.equals("virtual")) {
            return VIRTUAL;
        }
        if (t.equals("cached")) {
            return new Cached();
        }
        if (t.equals("platform")) {
            return new Platform(Platform.DEFAULT_THREADS);
        }
        String n = null;
        if (t.startsWith("platform:")) {
            n = t.substring("platform:".length());
        } else if (t.startsWith("platform(") && t.endsWith(")")) {
            n = t.substring("platform(".length(), t.length() - 1);
        }
        if (n != null) {
            try {
                return new Platform(Integer.parseInt(n.trim()));
            } catch (NumberFormatException e) {
                // falls through to the message below
            }
        }
        throw new IllegalArgumentException(
                "expected a thread model: virtual, cached, platform or platform:N (N >= 1), got '" + text + "'");
    }
}
