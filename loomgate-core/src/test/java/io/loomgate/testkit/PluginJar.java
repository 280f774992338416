package io.loomgate.testkit;

import java.io.IOException;
import java.io.OutputStream;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;

/**
 * Builds a plugin jar from Java source at test time, as a team would: sources compiled with the JDK's
 * {@link JavaCompiler} against Loomgate's classes, plus {@code META-INF/services} files naming the providers.
 */
public final class PluginJar {
    private final Map<String, String> sources = new LinkedHashMap<>();
    private final Map<String, List<String>> services = new LinkedHashMap<>();

    /** Adds a class: its fully qualified name and its source. */
    public PluginJar source(String className, String source) {
        sources.put(className, source);
        return this;
    }

    /** Declares {@code provider} as an implementation of {@code service} (a fully qualified interface name). */
    public PluginJar provides(String service, String provider) {
        services.computeIfAbsent(service, k -> new ArrayList<>()).add(provider);
        return this;
    }

    /** Compiles and writes the jar; compiler errors fail with their text. */
    public Path writeTo(Path jar) throws IOException {
        Path work = Files.createTempDirectory("plugin-src");
        Path src = work.resolve("src");
        Path classes = work.resolve("classes");
        Files.createDirectories(classes);
        List<String> files = new ArrayList<>();
        for (Map.Entry<String, String> e : sources.entrySet()) {
            Path f = src.resolve(e.getKey().replace('.', '/') + ".java");
            Files.createDirectories(f.getParent());
            Files.writeString(f, e.getValue());
            files.add(f.toString());
        }
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        if (javac == null) {
            throw new IllegalStateException("no Java compiler in this runtime: run the tests on a JDK");
        }
        List<String> args = new ArrayList<>(List.of("--release", "21", "-d", classes.toString(),
                "-classpath", System.getProperty("java.class.path")));
        args.addAll(files);
        StringWriter errors = new StringWriter();
        int rc = javac.run(null, null, new java.io.PrintStream(OutputStream.nullOutputStream()) {
            @Override
            public void write(byte[] b, int off, int len) {
                errors.write(new String(b, off, len, StandardCharsets.UTF_8));
            }
        }, args.toArray(String[]::new));
        if (rc != 0) {
            throw new IllegalStateException("plugin source does not compile:\n" + errors);
        }
        Files.createDirectories(jar.toAbsolutePath().getParent());
        try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar));
             Stream<Path> walk = Files.walk(classes)) {
            for (Path p : walk.filter(Files::isRegularFile).sorted().toList()) {
                out.putNextEntry(new JarEntry(classes.relativize(p).toString().replace('\\', '/')));
                out.write(Files.readAllBytes(p));
                out.closeEntry();
            }
            for (Map.Entry<String, List<String>> s : services.entrySet()) {
                out.putNextEntry(new JarEntry("META-INF/services/" + s.getKey()));
                out.write((String.join("\n", s.getValue()) + "\n").getBytes(StandardCharsets.UTF_8));
                out.closeEntry();
            }
        }
        return jar;
    }
}
