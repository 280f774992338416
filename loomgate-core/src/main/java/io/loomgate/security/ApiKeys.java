package io.loomgate.security;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The API keys a route accepts, each a name and the SHA-256 of the key, so the configuration never holds a usable
 * key. API keys are long random strings, not passwords, so a fast hash is enough (nothing to brute-force). A presented
 * key is hashed and compared with every entry with {@link MessageDigest#isEqual} (constant time), all entries
 * always, so the answer's timing says nothing about which key or how much of it matched. Immutable.
 */
final class ApiKeys {
    private static final String PREFIX = "sha256:";

    private record Entry(String name, byte[] hash) {
    }

    private final List<Entry> entries;

    private ApiKeys(List<Entry> entries) {
        this.entries = List.copyOf(entries);
    }

    /** The name of the key, or null when it is none of ours. */
    String nameOf(String presented) {
        byte[] hash = sha256(presented);
        String found = null;
        for (Entry e : entries) {
            if (MessageDigest.isEqual(hash, e.hash()) && found == null) {
                found = e.name();
            }
        }
        return found;
    }

    int size() {
        return entries.size();
    }

    static byte[] sha256(String key) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(key.getBytes(StandardCharsets.UTF_8));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }

    /**
     * From the {@code keys} mapping (name → {@code sha256:<hex>}) and the lines of {@code keysFile}
     * ({@code name: sha256:<hex>}, {@code #} comments); names and hashes must each be unique.
     */
    static ApiKeys of(Map<String, String> keys, Path keysFile) {
        Map<String, String> all = new LinkedHashMap<>();
        keys.forEach((name, hash) -> add(all, name, hash, "keys: '" + name + "'"));
        if (keysFile != null) {
            List<String> lines;
            try {
                lines = Files.readAllLines(keysFile, StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new IllegalArgumentException("keys-file: cannot read " + keysFile + ": " + e);
            }
            for (int i = 0; i < lines.size(); i++) {
                String line = lines.get(i).trim();
                if (line.isEmpty() || line.startsWith("#")) {
                    continue;
                }
                String where = "keys-file " + keysFile + ":" + (i + 1);
                int colon = line.indexOf(':');
                if (colon <= 0) {
                    throw new IllegalArgumentException(where + ": expected 'name: sha256:<64 hex digits>'");
                }
                add(all, line.substring(0, colon).trim(), line.substring(colon + 1).trim(), where);
            }
        }
        if (all.isEmpty()) {
            throw new IllegalArgumentException("needs at least one key (keys: {name: sha256:<hex>} or keys-file)");
        }
        List<Entry> entries = new ArrayList<>();
        Map<String, String> seenHashes = new LinkedHashMap<>();
        for (Map.Entry<String, String> e : all.entrySet()) {
            String before = seenHashes.putIfAbsent(e.getValue(), e.getKey());
            if (before != null) {
                throw new IllegalArgumentException("keys '" + before + "' and '" + e.getKey()
                        + "' have the same hash: one key cannot name two principals");
            }
            entries.add(new Entry(e.getKey(), HexFormat.of().parseHex(e.getValue())));
        }
        return new ApiKeys(entries);
    }

    private static void add(Map<String, String> all, String name, String hash, String where) {
        if (name.isEmpty() || !name.chars().allMatch(c -> c > 0x20 && c < 0x7f)) {
            throw new IllegalArgumentException(where + ": a key name is visible ASCII without spaces, got '" + name
                    + "'");
        }
        String h = hash.toLowerCase(java.util.Locale.ROOT);
        if (!h.startsWith(PREFIX) || h.length() != PREFIX.length() + 64
                || !h.substring(PREFIX.length()).chars().allMatch(c -> Character.digit(c, 16) >= 0)) {
            throw new IllegalArgumentException(where + ": expected sha256:<64 hex digits> (the SHA-256 of the key, "
                    + "e.g. printf %s \"$KEY\" | sha256sum), got '" + hash + "'");
        }
        if (all.putIfAbsent(name, h.substring(PREFIX.length())) != null) {
            throw new IllegalArgumentException(where + ": the key name '" + name + "' appears twice");
        }
    }
}
