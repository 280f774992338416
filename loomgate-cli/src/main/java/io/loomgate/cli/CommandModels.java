package io.loomgate.cli;

import java.nio.file.Path;
import java.util.function.Consumer;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.ISetter;
import picocli.CommandLine.Model.OptionSpec;

/**
 * Parts of picocli models built in code rather than read from annotations, for the commands on the way to the first
 * request (the root and {@code serve}): from annotations picocli reads every field by reflection and the JDK makes a
 * proxy class for each annotation type, which was most of picocli's sixth of the main thread's work before the first
 * answered request. The help they print is the same as the annotations gave.
 */
final class CommandModels {
    /**
     * A path as picocli's built-in converter makes it ({@code Paths.get}), without its reflection: picocli calls
     * {@code Paths.get} through {@code Method.invoke}, whose first use spins method-handle classes at run time (the
     * JDK's AOT cache does not hold them), about 5 ms of the main thread before the first answer.
     */
    static final ITypeConverter<Path> PATH = Path::of;

    private CommandModels() {
    }

    /** {@code -h, --help} and {@code -V, --version}, as picocli's {@code mixinStandardHelpOptions} adds them. */
    static CommandSpec withStandardHelp(CommandSpec spec) {
        spec.addOption(OptionSpec.builder("-h", "--help").usageHelp(true).type(boolean.class)
                .description("Show this help message and exit.").build());
        spec.addOption(OptionSpec.builder("-V", "--version").versionHelp(true).type(boolean.class)
                .description("Print version information and exit.").build());
        return spec;
    }

    /**
     * An option of {@code type} whose value (null when not given, or its default) goes to {@code to}; the caller adds
     * what else it has (default, converter) and builds it.
     */
    static <T> OptionSpec.Builder option(Class<T> type, Consumer<T> to, String paramLabel, String description,
                                         String... names) {
        return OptionSpec.builder(names).type(type).paramLabel(paramLabel).description(description)
                .setter(new ISetter() {
                    @Override
                    public <V> V set(V value) {
                        to.accept(type.cast(value));
                        return null;
                    }
                });
    }
}
