package io.loomgate.config;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;

/**
 * {@code loomgate import-scg}: a Spring Cloud Gateway {@code application.yml} rewritten in Loomgate's own layout,
 * with a comment for each key dropped because it has no equivalent (where serving the SCG file would refuse it).
 * {@code ${...}} placeholders are kept as written. The output is written by Jackson's YAML generator, so the
 * original comments and key order within a mapping are kept only as far as the tree holds them (order: yes;
 * comments: no).
 */
public final class ScgImport {
    private static final YAMLMapper MAPPER = new YAMLMapper(YAMLFactory.builder()
            .disable(YAMLGenerator.Feature.WRITE_DOC_START_MARKER)
            .enable(YAMLGenerator.Feature.MINIMIZE_QUOTES)
            .enable(YAMLGenerator.Feature.INDENT_ARRAYS_WITH_INDICATOR)
            .build());

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
        try {
            return out + MAPPER.writeValueAsString(tree(t.root()));
        } catch (JsonProcessingException e) {
            throw new ConfigException(file, 0, "", "cannot write YAML: " + e.getOriginalMessage());
        }
    }

    private static JsonNode tree(YamlNode node) {
        JsonNodeFactory f = JsonNodeFactory.instance;
        return switch (node) {
            case YamlNode.Scalar s when s.isNull() -> f.nullNode();
            case YamlNode.Scalar s when s.isBool() -> f.booleanNode(s.text().trim().equalsIgnoreCase("true")
                    || s.text().trim().equalsIgnoreCase("yes") || s.text().trim().equalsIgnoreCase("on"));
            case YamlNode.Scalar s -> f.textNode(s.text());
            case YamlNode.Sequence seq -> {
                ArrayNode a = f.arrayNode();
                seq.items().forEach(i -> a.add(tree(i)));
                yield a;
            }
            case YamlNode.Mapping m -> {
                ObjectNode o = f.objectNode();
                m.entries().forEach(e -> o.set(e.key(), tree(e.value())));
                yield o;
            }
        };
    }
}
