package io.loomgate.tls;

import java.nio.file.Path;
import java.util.List;

/** TLS material read from files that can be read again while connections run. */
public interface Reloadable {
    /** Reads the files again and uses them for new handshakes; on failure keeps what it had and says why. */
    void reload() throws TlsMaterialException;

    /** The files it reads. */
    List<Path> files();

    /** Subjects of the certificates in use, for logs. */
    List<String> subjects();
}
