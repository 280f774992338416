package io.loomgate.config;

/**
 * A configuration the gateway refuses, with where and why:
 * {@code gateway.yaml:14: route 'users': unknown filter 'StripPrefx' — did you mean 'StripPrefix'?}.
 * The CLI prints {@link #getMessage()} and exits with status 2. When the line is unknown (a missing or empty file)
 * the message has no line part: {@code gateway.yaml: no such file}.
 */
public final class ConfigException extends Exception {
    private final String file;
    private final int line;
    private final String key;

    public ConfigException(String file, int line, String key, String problem) {
        super(file + (line > 0 ? ":" + line : "") + ": " + (key == null || key.isEmpty() ? "" : key + ": ") + problem);
        this.file = file;
        this.line = line;
        this.key = key;
    }

    public String file() {
        return file;
    }

    /** 1-based line, or 0 when unknown (e.g. the file is empty). */
    public int line() {
        return line;
    }

    /** The key path or context, e.g. {@code route 'users'} or {@code server.port}. */
    public String key() {
        return key;
    }
}
