package io.loomgate.testkit;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Finds a command-line tool a test drives (h2spec, h2load, curl). Under CI=true a missing tool fails the test loudly;
 * locally the test is skipped with a message saying how to install it.
 */
public final class ExternalTool {
    private ExternalTool() {
    }

    /**
     * The tool's path, looked for on PATH, in $GOBIN and $HOME/go/bin (where .ci/run's go install puts it), and in
     * /usr/sbin.
     */
    public static Path require(String name, String howToInstall) {
        List<Path> dirs = new ArrayList<>();
        String path = System.getenv("PATH");
        if (path != null) {
            for (String d : path.split(java.io.File.pathSeparator)) {
                dirs.add(Path.of(d));
            }
        }
        String gobin = System.getenv("GOBIN");
        if (gobin != null) {
            dirs.add(Path.of(gobin));
        }
        dirs.add(Path.of(System.getProperty("user.home"), "go", "bin"));
        dirs.add(Path.of("/usr/sbin")); // nghttpd (Debian's nghttp2-server) lives here, off a normal user's PATH
        for (Path d : dirs) {
            Path p = d.resolve(name);
            if (Files.isExecutable(p)) {
                return p;
            }
        }
        String message = name + " not found (install: " + howToInstall + "; .ci/run does)";
        if ("true".equals(System.getenv("CI"))) {
            throw new AssertionError(message);
        }
        assumeTrue(false, message);
        return null;
    }
}
