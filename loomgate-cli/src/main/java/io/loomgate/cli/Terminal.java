package io.loomgate.cli;

import java.io.Console;

/** Whether standard output is an interactive terminal, so live progress lines make sense. */
public final class Terminal {
    private Terminal() {
    }

    public static boolean isInteractive() {
        Console console = System.console();
        if (console == null) {
            return false;
        }
        // From JDK 22 System.console() is non-null even when redirected; Console.isTerminal() then tells.
        try {
            return (Boolean) Console.class.getMethod("isTerminal").invoke(console);
        } catch (ReflectiveOperationException e) {
            return true;
        }
    }
}
