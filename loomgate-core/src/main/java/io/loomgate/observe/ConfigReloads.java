package io.loomgate.observe;

import java.time.Instant;

/**
 * What the admin listener's {@code /reload} reaches: {@code POST} reloads the configuration file now, {@code GET}
 * shows the last attempt. Implemented by the composition root, which owns the file and the swap.
 */
public interface ConfigReloads {

    /**
     * One reload attempt.
     *
     * @param outcome {@code applied}, {@code unchanged} (the file says what is already served), {@code invalid} (the
     *                file was refused; nothing changed), {@code needs_restart} (it changes what cannot change live;
     *                nothing changed) or {@code held} (the file watch saw a file that drops routes or protective
     *                filters, as a half-written one does, and applies it only if it stays the same longer; nothing
     *                changed yet)
     * @param message what happened, e.g. the config error with file and line
     * @param trigger what asked for it: {@code file}, {@code signal} (SIGHUP) or {@code admin}
     * @param at      when it finished
     */
    record Result(String outcome, String message, String trigger, Instant at) {
        /** 200 for applied or unchanged, 202 for held, 409 for needs_restart, 422 for invalid. */
        public int httpStatus() {
            return switch (outcome) {
                case "applied", "unchanged" -> 200;
                case "held" -> 202;
                case "needs_restart" -> 409;
                default -> 422;
            };
        }
    }

    /**
     * Reads, checks and applies the configuration file now, or once it has stayed the same for the settle window if
     * it was written just now (a file being written is never applied half); never throws.
     */
    Result reload(String trigger);

    /** The last attempt, or null before the first. */
    Result last();
}
