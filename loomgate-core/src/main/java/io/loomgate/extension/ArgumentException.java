package io.loomgate.extension;

/**
 * A filter argument a {@link FilterFactory} refuses, naming which one, so configuration can point at the line where
 * that argument was written rather than at the filter's. Throw it from {@link FilterFactory#create} where a plain
 * {@link IllegalArgumentException} would do; the message still names the argument.
 */
public final class ArgumentException extends IllegalArgumentException {
    private final String argument;

    /**
     * @param argument the argument's name as written in configuration
     * @param message  what is wrong, starting with the argument's name
     */
    public ArgumentException(String argument, String message) {
        super(message);
        this.argument = argument;
    }

    public String argument() {
        return argument;
    }
}
