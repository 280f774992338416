package io.loomgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * deploy/compare-image-archives.py, the check that two dist image archives differ only by the AOT cache (and the
 * layer, config, manifest and index that follow from it), on OCI archives made here the way podman lays them out:
 * a base layer and an /opt/loomgate layer, made with tar, named by their SHA-256.
 */
class CompareImageArchivesTest {
    @TempDir
    Path dir;

    private static String sha256(byte[] b) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(b));
    }

    private static void run(Path cwd, String... cmd) throws Exception {
        Process p = new ProcessBuilder(cmd).directory(cwd.toFile()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(String.join(" ", cmd) + ": " + out).isZero();
    }

    /** An OCI archive of two layers: /lib/libc.so.6 and /opt/loomgate/{loomgate.jar, loomgate.aot}. */
    private Path archive(String name, Map<String, String> files, String historyDigest) throws Exception {
        Path work = Files.createDirectories(dir.resolve(name));
        Path blobs = Files.createDirectories(work.resolve("layout/blobs/sha256"));
        List<String> layers = new ArrayList<>();
        for (String prefix : List.of("lib/", "opt/")) {
            Path root = Files.createDirectories(work.resolve("root-" + prefix.charAt(0)));
            for (Map.Entry<String, String> f : files.entrySet()) {
                if (f.getKey().startsWith(prefix)) {
                    Path p = root.resolve(f.getKey());
                    Files.createDirectories(p.getParent());
                    Files.writeString(p, f.getValue());
                }
            }
            Path tar = work.resolve("layer.tar");
            run(root, "tar", "--sort=name", "--mtime=@1795910400", "--owner=0", "--group=0", "--numeric-owner",
                    "-cf", tar.toString(), ".");
            byte[] b = Files.readAllBytes(tar);
            String digest = sha256(b);
            Files.write(blobs.resolve(digest), b);
            layers.add(digest);
        }
        String config = """
                {"architecture":"amd64","os":"linux","config":{"User":"10001:10001"},
                 "rootfs":{"type":"layers","diff_ids":["sha256:%s","sha256:%s"]},
                 "history":[{"created":"2026-11-29T00:00:00Z","created_by":"COPY dir:%s in / "}]}
                """.formatted(layers.get(0), layers.get(1), historyDigest);
        String configDigest = sha256(config.getBytes(StandardCharsets.UTF_8));
        Files.writeString(blobs.resolve(configDigest), config);
        String manifest = """
                {"schemaVersion":2,"config":{"mediaType":"application/vnd.oci.image.config.v1+json","digest":"sha256:%s"},
                 "layers":[{"mediaType":"application/vnd.oci.image.layer.v1.tar","digest":"sha256:%s"},
                           {"mediaType":"application/vnd.oci.image.layer.v1.tar","digest":"sha256:%s"}]}
                """.formatted(configDigest, layers.get(0), layers.get(1));
        String manifestDigest = sha256(manifest.getBytes(StandardCharsets.UTF_8));
        Files.writeString(blobs.resolve(manifestDigest), manifest);
        Files.writeString(work.resolve("layout/index.json"), """
                {"schemaVersion":2,"manifests":[{"mediaType":"application/vnd.oci.image.manifest.v1+json",
                 "digest":"sha256:%s"}]}
                """.formatted(manifestDigest));
        Files.writeString(work.resolve("layout/oci-layout"), "{\"imageLayoutVersion\":\"1.0.0\"}");
        Path out = dir.resolve(name + ".oci.tar");
        run(work.resolve("layout"), "tar", "-cf", out.toString(), ".");
        return out;
    }

    private record Result(int exit, String out) {
    }

    private static Result compare(String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of("python3",
                RepoRoot.find().resolve("deploy/compare-image-archives.py").toString()));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        return new Result(p.exitValue(), out);
    }

    @Test
    void twoBuildsThatDifferOnlyInTheAotCacheAreTheSameAndAnyOtherFileIsNot() throws Exception {
        String a64 = "a".repeat(64);
        String b64 = "b".repeat(64);
        Path first = archive("first", Map.of("lib/libc.so.6", "glibc", "opt/loomgate/loomgate.jar", "jar",
                "opt/loomgate/loomgate.aot", "profile one"), a64);
        Path second = archive("second", Map.of("lib/libc.so.6", "glibc", "opt/loomgate/loomgate.jar", "jar",
                "opt/loomgate/loomgate.aot", "profile two"), b64);
        assertThat(Files.readAllBytes(first)).isNotEqualTo(Files.readAllBytes(second));
        Result same = compare(first.toString(), second.toString());
        assertThat(same.exit()).as(same.out()).isZero();
        assertThat(same.out()).contains("expected: opt/loomgate/loomgate.aot differs (layer 1)",
                "same but for opt/loomgate/loomgate.aot");

        Path jar = archive("jar", Map.of("lib/libc.so.6", "glibc", "opt/loomgate/loomgate.jar", "another jar",
                "opt/loomgate/loomgate.aot", "profile two"), b64);
        Result differs = compare(first.toString(), jar.toString());
        assertThat(differs.exit()).as(differs.out()).isEqualTo(1);
        assertThat(differs.out()).contains("DIFFERS: opt/loomgate/loomgate.jar differs");

        Path extra = archive("extra", Map.of("lib/libc.so.6", "glibc", "lib/libz.so.1", "zlib",
                "opt/loomgate/loomgate.jar", "jar", "opt/loomgate/loomgate.aot", "profile one"), a64);
        Result more = compare(first.toString(), extra.toString());
        assertThat(more.exit()).isEqualTo(1);
        assertThat(more.out()).contains("DIFFERS: lib/libz.so.1: only in");
    }
}
