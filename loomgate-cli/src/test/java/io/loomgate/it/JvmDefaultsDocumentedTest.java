package io.loomgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The JVM options the image's ENTRYPOINT and the launcher's {@code serve} pass are the ones docs/deployment.md
 * states, so a flag changed in one place and not the other fails here, in the normal build and without building the
 * image (ContainerImageIT runs the image; LauncherDefaultsIT checks the launcher's flags on a running JVM).
 */
class JvmDefaultsDocumentedTest {
    /** A JVM option in a quoted ENTRYPOINT item or a launcher array: -XX:..., -Xmx..., -Xms..., -Xss.... */
    private static final Pattern OPTION = Pattern.compile("(-XX:[+-]?\\w+(?:=[\\w.=]+)?|-X(?:mx|ms|ss)\\w+)");

    @Test
    void theImagesJvmOptionsAreDocumented() throws IOException {
        Path root = RepoRoot.find();
        String dockerfile = Files.readString(root.resolve("Dockerfile"));
        Matcher entry = Pattern.compile("(?m)^ENTRYPOINT \\[\"/opt/loomgate/jre/bin/java\",((?:.|\\n)*?)\\]")
                .matcher(dockerfile);
        assertThat(entry.find()).as("the runtime stage's ENTRYPOINT").isTrue();
        Set<String> options = options(entry.group(1));
        assertThat(options).contains("-XX:+UseSerialGC", "-XX:+ExitOnOutOfMemoryError");
        assertThat(undocumented(root, options, "docs/deployment.md")).as("image options not in docs/deployment.md")
                .isEmpty();
    }

    @Test
    void theLaunchersServeOptionsAreDocumented() throws IOException {
        Path root = RepoRoot.find();
        String launcher = Files.readString(root.resolve("loomgate"));
        Matcher m = Pattern.compile("mem\\+=\\(([^)]*)\\)").matcher(launcher);
        Set<String> options = new LinkedHashSet<>();
        while (m.find()) {
            options.addAll(options(m.group(1)));
        }
        assertThat(options).contains("-Xmx176m", "-XX:+UseSerialGC");
        assertThat(undocumented(root, options, "docs/deployment.md")).as("launcher options not in docs/deployment.md")
                .isEmpty();
    }

    private static Set<String> options(String text) {
        Set<String> options = new LinkedHashSet<>();
        Matcher m = OPTION.matcher(text);
        while (m.find()) {
            options.add(m.group(1));
        }
        return options;
    }

    private static Set<String> undocumented(Path root, Set<String> options, String doc) throws IOException {
        String text = Files.readString(root.resolve(doc));
        Set<String> missing = new LinkedHashSet<>();
        for (String o : options) {
            if (!o.startsWith("-XX:AOTCache") && !text.contains(o)) {
                missing.add(o);
            }
        }
        return missing;
    }
}
