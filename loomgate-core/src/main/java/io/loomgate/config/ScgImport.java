package io.loomgate.config;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;
import java.io.IOException;
import java.io.StringWriter;

/**
 * {@code loomgate import-scg}: a Spring Cloud Gateway {@code application.yml} rewritten in Loomgate's own layout,
 * with a comment for each key dropped because it has no equivalent (where serving the SCG file would refuse it).
 * {@code ${...}} placeholders are kept as written. The output is written by Jackson's YAML generator (streaming:
 * the gateway carries no jackson-databind), so the original comments and key order within a mapping are kept only
 * as far as the tree holds them (order: yes; comments: no).
 */
public final class ScgImport {
    private static final YAMLFactory FACTORY = YAMLFactory.builder()
            .disable(YAMLGenerator.Feature.WRITE_DOC_START_MARKER)
            .enable(YAMLGenerator.Feature.MINIMIZE_QUOTES)
            .enable(YAMLGenerator.Feature.INDENT_ARRAYS_WITH_INDICATOR)
            .build();

    private ScgImport() {
    }

    /**
     * @param yaml the SCG file's text
     * @param file its name, for the comments and for errors
     * @throws ConfigException for YAML that cannot be read, or a conflict the translation cannot settle
     */
    public static String toNative(String yaml, String file) throws ConfigException {
        ScgLayout.Translation t = ScgLayout.importing(YamlReader.readUnsubstituted(yaml, file), file);
        StringBuilder out = new StringBuilder("# Loomgate configuration imported from " + file
                + " (loomgate import-scg)\n");
        if (!t.wasScg()) {
            out.append("# (it has no spring: section; it is written back as it was read)\n");
        }
        for (ScgLayout.Dropped d : t.dropped()) {
            out.append("# dropped ").append(file).append(':').append(d.line()).append(": ").append(d.key())
                    .append(": ").append(d.reason()).append('\n');
        }
        StringWriter yamlOut = new StringWriter();
        try (JsonGenerator g = FACTORY.createGenerator(yamlOut)) {
            write(g, t.root());
        } catch (IOException e) {
            throw new ConfigException(file, 0, "", "cannot write YAML: " + e.getMessage());
        }
        return out.append(yamlOut).toString();
    }

    private static void write(JsonGenerator g, YamlNode node) throws IOException {
        switch (node) {
            case YamlNode.Scalar s when s.isNull() -> g.writeNull();
            case YamlNode.Scalar s when s.isBool() -> g.writeBoolean(s.text().trim().equalsIgnoreCase("true")
                    || s.text().trim().equalsIgnoreCase("yes") || s.text().trim().equalsIgnoreCase("on"));
            case YamlNode.Scalar s -> g.writeString(s.text());
            case YamlNode.Sequence seq -> {
                g.writeStartArray();
                for (YamlNode item : seq.items()) {
                    write(g, item);
                }
                g.writeEndArray();
            }
            case YamlNode.Mapping m -> {
                g.writeStartObject();
                for (YamlNode.Entry e : m.entries()) {
                    g.writeFieldName(e.key());
                    write(g, e.value());
                }
                g.writeEndObject();
            }
        }
    }
}
