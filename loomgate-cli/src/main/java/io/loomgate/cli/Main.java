package io.loomgate.cli;

import io.loomgate.upstream.JdkDnsCache;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.List;
import java.util.jar.JarFile;
import java.util.jar.Manifest;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;

/**
 * Entry point of the runnable jars: {@code loomgate <command>}. The gateway commands are always there; the lab's
 * (backend, load, bench) only in the jar that carries the lab ({@code loomgate.jar}, not {@code loomgate-gateway.jar}).
 * The root's picocli model is built in code ({@link #model()}, {@link CommandModels}).
 */
public final class Main {
    /**
     * The gateway's commands by name, in the order help lists them. Registered here rather than in the annotation:
     * picocli reads every registered command's annotations and builds its model up front (reflection, a sixth of the
     * main thread's work before the first request), so a run of one command registers that one alone.
     */
    private static final List<String> COMMANDS = List.of("serve", "validate", "import-scg", "demo");

    /** The lab's commands, in the order help lists them; present only when the lab is on the class path. */
    private static final String[] LAB_COMMANDS = {
        "io.loomgate.cli.lab.BackendCommand", "io.loomgate.cli.lab.LoadCommand", "io.loomgate.cli.lab.BenchCommand",
        "io.loomgate.cli.lab.AotTrainCommand"};

    public static void main(String[] args) {
        Thread.setDefaultUncaughtExceptionHandler(Main::uncaught);
        JdkDnsCache.shorten(); // first, before any command looks a name up: the JDK reads the setting once
        System.exit(commandLine(args.length == 0 ? null : args[0]).execute(args));
    }

    /** A gateway command by name; a switch, so the classes of the others are not even loaded. */
    private static Object command(String name) {
        return switch (name) {
            case "serve" -> ServeCommand.model();
            case "validate" -> new ValidateCommand();
            case "import-scg" -> new ImportScgCommand();
            case "demo" -> new DemoCommand();
            default -> throw new IllegalArgumentException("not a gateway command: " + name);
        };
    }

    /**
     * Run without the launcher's {@code -XX:+ExitOnOutOfMemoryError}, a JVM out of heap loses its threads one by one
     * (accept loop, watchdogs) and becomes a process that holds its sockets and serves nothing. An OutOfMemoryError
     * that reaches the top of any thread ends the process instead, so a supervisor can restart it.
     */
    private static void uncaught(Thread t, Throwable e) {
        if (e instanceof OutOfMemoryError) {
            System.err.println("loomgate: " + e + " in thread " + t.getName() + "; exiting");
            Runtime.getRuntime().halt(3);
        }
        System.err.print("Exception in thread \"" + t.getName() + "\" ");
        e.printStackTrace();
    }

    /** With every command (help lists them all). */
    static CommandLine commandLine() {
        return commandLine(null);
    }

    /**
     * With the gateway command {@code first} names alone, or with every command when {@code first} is not one of them
     * (null, an option, {@code help}, a lab command, a mistyped name: picocli's answers are the same as before).
     */
    static CommandLine commandLine(String first) {
        CommandLine cl = new CommandLine(model());
        if (first != null && COMMANDS.contains(first)) {
            cl.addSubcommand(command(first));
            return cl.setCaseInsensitiveEnumValuesAllowed(true);
        }
        COMMANDS.forEach(name -> cl.addSubcommand(command(name)));
        cl.addSubcommand(new CommandLine.HelpCommand());
        if (labPresent()) {
            for (String name : LAB_COMMANDS) {
                try {
                    cl.addSubcommand(Class.forName(name).getDeclaredConstructor().newInstance());
                } catch (ReflectiveOperationException e) {
                    throw new IllegalStateException("lab command " + name + " cannot be made", e);
                }
            }
        }
        cl.setCaseInsensitiveEnumValuesAllowed(true);
        return cl;
    }

    /** The root command: its name, description, version and the standard help options; no subcommands yet. */
    private static CommandSpec model() {
        CommandSpec spec = CommandModels.withStandardHelp(CommandSpec.wrapWithoutInspection(new Main())
                .name("loomgate").versionProvider(new Version()));
        spec.usageMessage().description("HTTP reverse proxy and API gateway on virtual threads.");
        return spec;
    }

    private static boolean labPresent() {
        try {
            Class.forName(LAB_COMMANDS[0], false, Main.class.getClassLoader());
            Class.forName("io.loomgate.lab.backend.MockBackend", false, Main.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException e) {
            return false;
        }
    }

    /**
     * The version and the commit from the jar's manifest ({@code Implementation-Version}, {@code SCM-Revision}: the
     * build writes both, the launcher passes git's commit), or "dev" when run from classes. Read from the manifest,
     * not from git at run time: the jar says what it was built from, wherever it runs (the container has no git).
     */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            String v = Main.class.getPackage().getImplementationVersion();
            return new String[] {"loomgate " + (v == null ? "dev" : v) + " (commit " + commit() + ") on Java "
                    + Runtime.version()};
        }

        private static String commit() {
            try {
                var source = Main.class.getProtectionDomain().getCodeSource();
                if (source == null || !source.getLocation().getPath().endsWith(".jar")) {
                    return "unknown";
                }
                try (JarFile jar = new JarFile(Path.of(source.getLocation().toURI()).toFile())) {
                    Manifest m = jar.getManifest();
                    String c = m == null ? null : m.getMainAttributes().getValue("SCM-Revision");
                    return c == null || c.isBlank() ? "unknown" : c;
                }
            } catch (IOException | URISyntaxException e) {
                return "unknown";
            }
        }
    }
}
