package io.loomgate.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** Entry point of the runnable jar: {@code loomgate <command>}. */
@Command(name = "loomgate", mixinStandardHelpOptions = true, versionProvider = Main.Version.class,
        description = "HTTP/1.1 reverse proxy and API gateway on virtual threads.",
        subcommands = {ServeCommand.class, DemoCommand.class, BackendCommand.class, LoadCommand.class,
            BenchCommand.class, CommandLine.HelpCommand.class})
public final class Main {

    public static void main(String[] args) {
        System.exit(commandLine().execute(args));
    }

    static CommandLine commandLine() {
        CommandLine cl = new CommandLine(new Main());
        cl.setCaseInsensitiveEnumValuesAllowed(true);
        return cl;
    }

    /** The version from the jar's manifest, or "dev" when run from classes. */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            String v = Main.class.getPackage().getImplementationVersion();
            return new String[] {"loomgate " + (v == null ? "dev" : v) + " on Java " + Runtime.version()};
        }
    }
}
