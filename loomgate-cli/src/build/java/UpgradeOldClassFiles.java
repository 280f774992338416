import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.lang.classfile.ClassFile;
import java.lang.classfile.ClassHierarchyResolver;
import java.lang.classfile.ClassModel;
import java.lang.classfile.ClassTransform;
import java.lang.classfile.CodeTransform;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.zip.CRC32;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import java.util.zip.ZipOutputStream;

/**
 * Build step (run by the build on its own JDK, 24+, as a source-file program): rewrites the class files of a runnable
 * jar that are older than Java 6 (version 49 and below: picocli's, built for Java 5) as Java 8 class files (version
 * 52) with stack maps, the same code otherwise. Why: JDK 25's AOT cache holds classes linked ahead of time, and it
 * leaves out every "old" class (and every class implementing an old interface), so picocli's 146 classes were read
 * from the jar and checked by the old type-inferring verifier at every start, about a third of the main thread's
 * work before the first answer (docs/journal/2026-11-30-start.md). Version 52 runs on every JDK the gateway runs on.
 *
 * <p>The jar is rewritten in place, entry by entry in the same order with the same times, so the build stays
 * reproducible. A class whose stack maps cannot be computed (a type the jar and the JDK do not have) fails the build.
 *
 * <p>Usage: {@code java UpgradeOldClassFiles.java <jar>...}
 */
public final class UpgradeOldClassFiles {
    private static final int JAVA_6 = 50;
    private static final int JAVA_8 = 52;

    public static void main(String[] args) throws IOException {
        for (String arg : args) {
            Path jar = Path.of(arg);
            int n = upgrade(jar);
            System.out.println("UpgradeOldClassFiles: " + n + " class files of " + jar.getFileName()
                    + " rewritten as Java 8 class files");
        }
    }

    private static int upgrade(Path jar) throws IOException {
        Path out = jar.resolveSibling(jar.getFileName() + ".upgrading");
        int upgraded = 0;
        try (var loader = new URLClassLoader(new URL[] {jar.toUri().toURL()}, ClassLoader.getPlatformClassLoader());
                var in = new ZipFile(jar.toFile());
                var zip = new ZipOutputStream(Files.newOutputStream(out))) {
            ClassFile classFile = ClassFile.of(
                    ClassFile.ClassHierarchyResolverOption.of(ClassHierarchyResolver.defaultResolver()
                            .orElse(ClassHierarchyResolver.ofResourceParsing(loader))),
                    ClassFile.StackMapsOption.GENERATE_STACK_MAPS);
            for (var entries = in.entries(); entries.hasMoreElements(); ) {
                ZipEntry entry = entries.nextElement();
                byte[] bytes = in.getInputStream(entry).readAllBytes();
                if (entry.getName().endsWith(".class") && isOld(bytes)) {
                    bytes = upgrade(classFile, bytes);
                    upgraded++;
                }
                zip.putNextEntry(copyOf(entry, bytes));
                zip.write(bytes);
                zip.closeEntry();
            }
            zip.setComment(in.getComment());
        }
        Files.move(out, jar, StandardCopyOption.REPLACE_EXISTING);
        return upgraded;
    }

    /** The major version, read from the header: a class file's bytes 6-7. */
    private static boolean isOld(byte[] bytes) {
        return bytes.length > 8 && ((bytes[6] & 0xff) << 8 | (bytes[7] & 0xff)) < JAVA_6;
    }

    /** Every method body rebuilt (so its stack maps are computed), then the version raised. */
    private static byte[] upgrade(ClassFile classFile, byte[] bytes) {
        ClassModel model = classFile.parse(bytes);
        return classFile.transformClass(model, ClassTransform.transformingMethodBodies(CodeTransform.ACCEPT_ALL)
                .andThen(ClassTransform.endHandler(b -> b.withVersion(JAVA_8, 0))));
    }

    /** The entry as it was (name, time, extra, comment, method), sized for its new bytes. */
    private static ZipEntry copyOf(ZipEntry entry, byte[] bytes) {
        ZipEntry copy = new ZipEntry(entry.getName());
        copy.setTime(entry.getTime());
        if (entry.getLastModifiedTime() != null) {
            copy.setLastModifiedTime(entry.getLastModifiedTime());
        }
        copy.setExtra(entry.getExtra());
        copy.setComment(entry.getComment());
        copy.setMethod(entry.getMethod());
        if (entry.getMethod() == ZipEntry.STORED) {
            CRC32 crc = new CRC32();
            crc.update(bytes);
            copy.setSize(bytes.length);
            copy.setCompressedSize(bytes.length);
            copy.setCrc(crc.getValue());
        }
        return copy;
    }

    private UpgradeOldClassFiles() {}
}
