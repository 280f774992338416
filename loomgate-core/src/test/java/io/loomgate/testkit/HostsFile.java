package io.loomgate.testkit;

import io.loomgate.upstream.NameResolver;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A hosts file the test rewrites, read on every lookup: the resolver DNS-refresh tests give the gateway, in the
 * format (and with the per-lookup reading) of the JDK's own {@code jdk.net.hosts.file} resolver, which a running JVM
 * cannot be switched to. Lines are {@code address name...}; {@code #} starts a comment. A name with no line is an
 * unknown host, as in DNS.
 */
public final class HostsFile implements NameResolver {
    private final Path file;
    private final AtomicInteger lookups = new AtomicInteger();

    public HostsFile(Path file) {
        this.file = file;
        write();
    }

    /** Replaces the file's content with these lines (written aside, then moved over it: never half read). */
    public HostsFile write(String... lines) {
        try {
            Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
            Files.writeString(tmp, String.join("\n", lines) + "\n", StandardCharsets.UTF_8);
            Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            return this;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** One name with these addresses, nothing else. */
    public HostsFile map(String name, String... addresses) {
        List<String> lines = new ArrayList<>();
        for (String a : addresses) {
            lines.add(a + " " + name);
        }
        return write(lines.toArray(String[]::new));
    }

    public Path path() {
        return file;
    }

    /** Lookups answered or refused so far. */
    public int lookups() {
        return lookups.get();
    }

    @Override
    public List<InetAddress> resolve(String host) throws IOException {
        lookups.incrementAndGet();
        List<InetAddress> out = new ArrayList<>();
        for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
            int hash = line.indexOf('#');
            String[] tokens = (hash < 0 ? line : line.substring(0, hash)).trim().split("\\s+");
            for (int i = 1; i < tokens.length; i++) {
                if (tokens[i].equalsIgnoreCase(host)) {
                    // a literal: parsed, never looked up
                    out.add(InetAddress.getByAddress(host, InetAddress.getByName(tokens[0]).getAddress()));
                }
            }
        }
        if (out.isEmpty()) {
            throw new UnknownHostException(host + ": not in " + file);
        }
        return out;
    }
}
