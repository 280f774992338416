package io.loomgate.testkit;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;

/**
 * Checks JSON log lines against the schema of the fields the gateway writes (test resource
 * {@value #SCHEMA}: ECS names and types) with a validator that is not ours: Python's {@code jsonschema} (Debian's
 * python3-jsonschema, which .ci/run installs). Without it: a failure under CI, a skip with the reason elsewhere.
 */
public final class EcsSchema {
    public static final String SCHEMA = "/ecs/loomgate-log.schema.json";
    private static final String MISSING = "'python3-jsonschema' is not installed (Debian package; .ci/run installs it)";
    /** Reads the schema file, then one JSON document per stdin line; prints each invalid one with why, exits 1. */
    private static final String VALIDATE = """
            import json, sys, jsonschema
            schema = json.load(open(sys.argv[1]))
            jsonschema.Draft202012Validator.check_schema(schema)
            v = jsonschema.Draft202012Validator(schema)
            bad = 0
            for n, line in enumerate(sys.stdin, 1):
                for e in v.iter_errors(json.loads(line)):
                    bad += 1
                    print("line %d: %s at %s" % (n, e.message, list(e.absolute_path)))
            sys.exit(1 if bad else 0)
            """;

    private EcsSchema() {
    }

    /** Fails naming each line and field that breaks the schema. */
    public static void assertValid(List<String> lines) throws IOException, InterruptedException {
        String python = findPython();
        if (python == null) {
            if ("true".equals(System.getenv("CI"))) {
                Assertions.fail(MISSING);
            }
            Assumptions.abort(MISSING + ": skipping the schema check");
        }
        Path schema = Files.createTempFile("loomgate-log", ".schema.json");
        try {
            try (InputStream in = EcsSchema.class.getResourceAsStream(SCHEMA)) {
                if (in == null) {
                    throw new IOException("test resource " + SCHEMA + " is missing");
                }
                Files.write(schema, in.readAllBytes());
            }
            Process p = new ProcessBuilder(python, "-c", VALIDATE, schema.toString()).redirectErrorStream(true)
                    .start();
            try (OutputStream stdin = p.getOutputStream()) {
                stdin.write((String.join("\n", lines) + "\n").getBytes(StandardCharsets.UTF_8));
            }
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(60, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                Assertions.fail("jsonschema did not finish within 60 s");
            }
            Assertions.assertEquals(0, p.exitValue(), () -> "lines that break " + SCHEMA + ":\n" + out
                    + "\nthe lines:\n" + String.join("\n", lines));
        } finally {
            Files.deleteIfExists(schema);
        }
    }

    /** The first of python3 on PATH and Debian's /usr/bin/python3 that imports jsonschema; null if none does. */
    private static String findPython() throws InterruptedException {
        for (String python : List.of("python3", "/usr/bin/python3")) {
            try {
                Process p = new ProcessBuilder(python, "-c", "import jsonschema").redirectErrorStream(true).start();
                p.getOutputStream().close();
                p.getInputStream().readAllBytes();
                if (p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0) {
                    return python;
                }
                p.destroyForcibly();
            } catch (IOException e) {
                // not there: try the next
            }
        }
        return null;
    }
}
