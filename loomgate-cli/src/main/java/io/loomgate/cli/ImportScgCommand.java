package io.loomgate.cli;

import io.loomgate.config.ConfigException;
import io.loomgate.config.ScgImport;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/**
 * {@code loomgate import-scg application.yml > gateway.yaml}: a Spring Cloud Gateway file in Loomgate's layout, with
 * a comment for each dropped key. Exit 0 with the YAML on stdout, 2 with a file:line message when it cannot be read.
 */
@Command(name = "import-scg", mixinStandardHelpOptions = true,
        description = "Write a Spring Cloud Gateway application.yml in Loomgate's layout to stdout.")
final class ImportScgCommand implements Callable<Integer> {

    @Parameters(index = "0", description = "The Spring Cloud Gateway application.yml.")
    Path file;

    @Override
    public Integer call() {
        try {
            String yaml = Files.readString(file, StandardCharsets.UTF_8);
            System.out.print(ScgImport.toNative(yaml, file.toString()));
            return 0;
        } catch (IOException e) {
            System.err.println("loomgate: " + file + ": cannot read the file: " + e);
            return 2;
        } catch (ConfigException e) {
            System.err.println("loomgate: " + e.getMessage());
            return 2;
        }
    }
}
