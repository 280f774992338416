package io.loomgate.it;

import java.nio.file.Files;
import java.nio.file.Path;

/** The repository's root: the nearest directory upward from the working directory that holds the Dockerfile. */
final class RepoRoot {
    private RepoRoot() {
    }

    static Path find() {
        Path p = Path.of("").toAbsolutePath();
        while (p != null && !Files.isRegularFile(p.resolve("Dockerfile"))) {
            p = p.getParent();
        }
        if (p == null) {
            throw new IllegalStateException("no Dockerfile above " + Path.of("").toAbsolutePath());
        }
        return p;
    }
}
