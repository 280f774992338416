package io.loomgate.lab.bench;

import java.io.PrintStream;

/**
 * Shows where a showdown is: which scenario, which model, what phase, and about how long is left in total. On a
 * terminal one line is rewritten in place; otherwise a line is printed per update.
 */
final class ProgressBoard {
    private final PrintStream out;
    private final boolean terminal;
    private final long startNanos = System.nanoTime();
    private double plannedSeconds;
    private String scenario = "";
    private String model = "";
    private int lastLength;

    ProgressBoard(PrintStream out, boolean terminal) {
        this.out = out;
        this.terminal = terminal;
    }

    void plan(double seconds) {
        plannedSeconds = seconds;
    }

    void at(String scenarioName, String modelName) {
        scenario = scenarioName;
        model = modelName;
        show("starting");
    }

    void show(String what) {
        double elapsed = (System.nanoTime() - startNanos) / 1e9;
        String line = String.format("[%s | %s] %s  (~%.0f s left)", scenario, model, what,
                Math.max(0, plannedSeconds - elapsed));
        if (terminal) {
            out.print("\r" + line + " ".repeat(Math.max(0, lastLength - line.length())));
            lastLength = line.length();
        } else {
            out.println(line);
        }
        out.flush();
    }

    /** Ends the in-place line before other output. */
    void clear() {
        if (terminal && lastLength > 0) {
            out.print("\r" + " ".repeat(lastLength) + "\r");
            out.flush();
            lastLength = 0;
        }
    }
}
