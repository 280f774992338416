package io.loomgate.tls;

import java.nio.file.Path;

/** A certificate, key or key store that cannot be used, with the file and why. */
public final class TlsMaterialException extends Exception {
    private final Path file;

    public TlsMaterialException(Path file, String problem) {
        super((file == null ? "" : file + ": ") + problem);
        this.file = file;
    }

    /** The file at fault, or null when the problem is not one file's. */
    public Path file() {
        return file;
    }
}
