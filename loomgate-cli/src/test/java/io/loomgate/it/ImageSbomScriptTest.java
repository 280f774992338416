package io.loomgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * deploy/image-sbom.py, which ./loomgate dist runs on the image it built, on image filesystems made here: the JRE from
 * its properties and release file; a local base's libraries named as the host's packages they are byte for byte (dpkg
 * on this machine); a Debian base's packages from its dpkg database; glibc's version from libc.so.6 itself.
 */
class ImageSbomScriptTest {
    private static final Path HOST_LIBS = Path.of("/lib/x86_64-linux-gnu");

    @TempDir
    Path dir;

    private JsonNode run(Path rootfs) throws Exception {
        Path sbom = dir.resolve("sbom.json");
        Files.writeString(sbom, """
                {"bomFormat":"CycloneDX","specVersion":"1.5","components":[
                  {"type":"library","bom-ref":"pkg:maven/org.slf4j/slf4j-api@2.0.16","name":"slf4j-api"}]}
                """);
        Path props = dir.resolve("props.txt");
        Files.writeString(props, """
                Property settings:
                    java.runtime.version = 25.0.3+9-LTS
                    java.vendor = Eclipse Adoptium
                    java.vendor.version = Temurin-25.0.3+9

                openjdk version "25.0.3" 2026-04-21 LTS
                """);
        Process p = new ProcessBuilder("python3", RepoRoot.find().resolve("deploy/image-sbom.py").toString(),
                sbom.toString(), rootfs.toString(), props.toString()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(out).isZero();
        return new ObjectMapper().readTree(sbom.toFile());
    }

    private static Path jre(Path rootfs) throws Exception {
        Path release = rootfs.resolve("opt/loomgate/jre/release");
        Files.createDirectories(release.getParent());
        Files.writeString(release, "JAVA_VERSION=\"25.0.3\"\nMODULES=\"java.base java.logging\"\n");
        return rootfs;
    }

    private static JsonNode named(JsonNode bom, String name) {
        for (JsonNode c : bom.get("components")) {
            if (c.get("name").asText().equals(name)) {
                return c;
            }
        }
        throw new AssertionError("no component " + name + " in " + bom.get("components"));
    }

    @Test
    void aLocalBasesLibrariesAreTheHostsPackagesTheyAreByteForByte() throws Exception {
        Assumptions.assumeTrue(Files.isRegularFile(HOST_LIBS.resolve("libc.so.6")), "a Debian-style host");
        Path rootfs = jre(dir.resolve("rootfs"));
        Path libs = Files.createDirectories(rootfs.resolve("lib/x86_64-linux-gnu"));
        Files.copy(HOST_LIBS.resolve("libc.so.6"), libs.resolve("libc.so.6"));
        Files.copy(HOST_LIBS.resolve("libm.so.6"), libs.resolve("libm.so.6"));
        Files.write(libs.resolve("libmystery.so.1"), new byte[] {1, 2, 3});

        JsonNode bom = run(rootfs);
        assertThat(named(bom, "slf4j-api").get("bom-ref").asText()).startsWith("pkg:maven/"); // the jars' stay
        JsonNode jre = named(bom, "jre");
        assertThat(jre.get("type").asText()).isEqualTo("platform");
        assertThat(jre.get("version").asText()).isEqualTo("25.0.3+9-LTS");
        assertThat(jre.get("supplier").get("name").asText()).isEqualTo("Eclipse Adoptium");
        assertThat(jre.toString()).contains("java.base java.logging");

        Process q = new ProcessBuilder("dpkg-query", "-W", "-f", "${Version}", "libc6").start();
        String libc6 = new String(q.getInputStream().readAllBytes()).trim();
        q.waitFor(30, TimeUnit.SECONDS);
        JsonNode pkg = named(bom, "libc6");
        assertThat(pkg.get("version").asText()).isEqualTo(libc6);
        assertThat(pkg.get("purl").asText()).startsWith("pkg:deb/").contains("/libc6@");
        assertThat(pkg.toString()).contains("/lib/x86_64-linux-gnu/libc.so.6", "/lib/x86_64-linux-gnu/libm.so.6");
        assertThat(named(bom, "glibc").get("version").asText()).matches("2\\.\\d+").satisfies(v ->
                assertThat(libc6).startsWith(v));
        // a file no package owns is listed as a file with its hash, never left out
        assertThat(named(bom, "/lib/x86_64-linux-gnu/libmystery.so.1").get("type").asText()).isEqualTo("file");
    }

    @Test
    void aDebianBasesPackagesComeFromItsOwnDpkgDatabase() throws Exception {
        Path rootfs = jre(dir.resolve("debian"));
        Files.createDirectories(rootfs.resolve("var/lib/dpkg"));
        Files.createDirectories(rootfs.resolve("etc"));
        Files.writeString(rootfs.resolve("etc/os-release"), "ID=debian\nVERSION_ID=\"12\"\n");
        Files.writeString(rootfs.resolve("var/lib/dpkg/status"), """
                Package: libc6
                Status: install ok installed
                Architecture: amd64
                Version: 2.36-9+deb12u9

                Package: removed-one
                Status: deinstall ok config-files
                Architecture: amd64
                Version: 1.0

                Package: tzdata
                Status: install ok installed
                Architecture: all
                Version: 2024a-0+deb12u1
                """);
        JsonNode bom = run(rootfs);
        List<String> names = new ArrayList<>();
        bom.get("components").forEach(c -> names.add(c.get("name").asText()));
        assertThat(names).contains("jre", "debian", "libc6", "tzdata").doesNotContain("removed-one");
        assertThat(named(bom, "libc6").get("purl").asText())
                .isEqualTo("pkg:deb/debian/libc6@2.36-9%2Bdeb12u9?arch=amd64");
        assertThat(named(bom, "debian").get("type").asText()).isEqualTo("operating-system");
    }
}
