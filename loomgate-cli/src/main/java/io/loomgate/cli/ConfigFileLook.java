package io.loomgate.cli;

import io.loomgate.config.ConfigException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.Objects;

/**
 * The configuration file as one look saw it: its bytes and its identity (SHA-256 of the bytes, size, modification
 * time, file key: the inode on Unix). Two looks that are {@link #sameAs} each other, some time apart, say the file
 * did not change in between; a writer still at work changes at least the size or the digest.
 *
 * @param bytes    the content
 * @param sha256   its digest
 * @param size     the size the file system reported after the read
 * @param modified the modification time reported after the read
 * @param fileKey  the file system's identity of the file (the inode and device on Unix), or null where there is none
 */
record ConfigFileLook(byte[] bytes, byte[] sha256, long size, FileTime modified, Object fileKey) {

    /**
     * Reads the file now (following symbolic links, as a Kubernetes ConfigMap mount needs).
     *
     * @throws IOException when it cannot be read (missing mid-rename, deleted, no permission)
     */
    static ConfigFileLook of(Path file) throws IOException {
        byte[] bytes = Files.readAllBytes(file);
        BasicFileAttributes a = Files.readAttributes(file, BasicFileAttributes.class);
        return new ConfigFileLook(bytes, sha256(bytes), a.size(), a.lastModifiedTime(), a.fileKey());
    }

    /** As {@link #of}, with the messages start-up gives for a file that cannot be read. */
    static ConfigFileLook read(Path file) throws ConfigException {
        try {
            return of(file);
        } catch (NoSuchFileException e) {
            throw new ConfigException(file.toString(), 0, "", "no such file");
        } catch (IOException e) {
            throw new ConfigException(file.toString(), 0, "", "cannot read the file: " + e);
        }
    }

    /** The content as UTF-8 text; a file cut inside a character is refused like any file that is not UTF-8. */
    String text(Path file) throws ConfigException {
        try {
            return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes)).toString();
        } catch (CharacterCodingException e) {
            throw new ConfigException(file.toString(), 0, "", "not UTF-8 text");
        }
    }

    /** The same content and the same identity: nothing wrote to the file between the two looks. */
    boolean sameAs(ConfigFileLook other) {
        return other != null && Arrays.equals(sha256, other.sha256) && size == other.size
                && modified.equals(other.modified) && Objects.equals(fileKey, other.fileKey);
    }

    /** Whether this content is the one with that digest. */
    boolean holds(byte[] digest) {
        return Arrays.equals(sha256, digest);
    }

    static byte[] sha256(byte[] bytes) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(bytes);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is in every JDK", e);
        }
    }
}
