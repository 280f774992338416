package io.loomgate.config;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLParser;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.yaml.snakeyaml.error.MarkedYAMLException;

/**
 * The reader of YAML documents before session 44, through Jackson's YAML parser (its code as it was): the reference
 * {@link YamlReaderTest} compares {@link YamlReader}, which reads SnakeYAML's events itself, against.
 */
final class JacksonYamlReference {
    private static final YAMLFactory FACTORY = new YAMLFactory();

    private final String file;
    /** Null: leave {@code ${...}} as written (for import-scg, whose output keeps the placeholders). */
    private final Map<String, String> env;
    private JsonParser parser;

    private JacksonYamlReference(String file, Map<String, String> env) {
        this.file = file;
        this.env = env;
    }

    /** As {@link #read}, with {@code ${...}} left as written. */
    static YamlNode readUnsubstituted(String yaml, String file) throws ConfigException {
        return new JacksonYamlReference(file, null).document(yaml);
    }

    /**
     * @return the document's root node
     * @throws ConfigException for syntax errors (with the parser's line), an empty document, several documents,
     *                         aliases, duplicate keys and failed substitutions
     */
    static YamlNode read(String yaml, String file, Map<String, String> env) throws ConfigException {
        return new JacksonYamlReference(file, env).document(yaml);
    }

    private YamlNode document(String yaml) throws ConfigException {
        try (JsonParser p = FACTORY.createParser(yaml)) {
            parser = p;
            JsonToken first = p.nextToken();
            if (first == null) {
                throw new ConfigException(file, 0, "", "the file is empty; expected at least a 'routes:' list");
            }
            YamlNode root = value(first, "");
            JsonToken extra = p.nextToken();
            if (extra != null) {
                throw new ConfigException(file, line(), "", "expected one YAML document, found another ('---')");
            }
            return root;
        } catch (JsonProcessingException e) {
            throw syntaxError(e);
        } catch (IOException e) {
            throw new ConfigException(file, 0, "", "cannot read YAML: " + e.getMessage());
        }
    }

    private YamlNode value(JsonToken token, String path) throws IOException, ConfigException {
        int line = line();
        if (parser instanceof YAMLParser y && y.isCurrentAlias()) {
            throw new ConfigException(file, line, path, "YAML aliases (*" + parser.getText()
                    + ") are not supported; write the value out");
        }
        return switch (token) {
            case START_OBJECT -> mapping(path, line);
            case START_ARRAY -> sequence(path, line);
            case VALUE_NULL -> new YamlNode.Scalar("", line, true, false);
            case VALUE_TRUE, VALUE_FALSE -> new YamlNode.Scalar(parser.getText(), line, false, true);
            default -> new YamlNode.Scalar(substitute(parser.getText(), path, line), line, false, false);
        };
    }

    private YamlNode.Mapping mapping(String path, int line) throws IOException, ConfigException {
        List<YamlNode.Entry> entries = new ArrayList<>();
        Map<String, Integer> seen = new HashMap<>();
        while (next() != JsonToken.END_OBJECT) {
            String key = parser.currentName();
            int keyLine = line();
            String keyPath = path.isEmpty() ? key : path + "." + key;
            Integer before = seen.putIfAbsent(key, keyLine);
            if (before != null) {
                throw new ConfigException(file, keyLine, path, "duplicate key '" + key + "' (first at line "
                        + before + ")");
            }
            entries.add(new YamlNode.Entry(key, keyLine, value(next(), keyPath)));
        }
        return new YamlNode.Mapping(List.copyOf(entries), line);
    }

    private YamlNode.Sequence sequence(String path, int line) throws IOException, ConfigException {
        List<YamlNode> items = new ArrayList<>();
        JsonToken t;
        while ((t = next()) != JsonToken.END_ARRAY) {
            items.add(value(t, path + "[" + items.size() + "]"));
        }
        return new YamlNode.Sequence(List.copyOf(items), line);
    }

    private String substitute(String text, String path, int line) throws ConfigException {
        if (env == null) {
            return text;
        }
        try {
            return EnvSubstitution.substitute(text, env);
        } catch (IllegalArgumentException e) {
            throw new ConfigException(file, line, path, e.getMessage());
        }
    }

    /** The next token; the parser reports a truncated document itself, so running out here is a bug. */
    private JsonToken next() throws IOException {
        JsonToken t = parser.nextToken();
        if (t == null) {
            throw new IOException("unexpected end of the YAML document");
        }
        return t;
    }

    private int line() {
        return parser.currentTokenLocation().getLineNr();
    }

    /** SnakeYAML's problem and mark read better than Jackson's multi-line message. */
    private ConfigException syntaxError(JsonProcessingException e) {
        if (e.getCause() instanceof MarkedYAMLException m && m.getProblemMark() != null) {
            String context = m.getContext() == null ? "" : " (" + m.getContext() + ")";
            return new ConfigException(file, m.getProblemMark().getLine() + 1, "",
                    "YAML syntax error: " + m.getProblem() + context);
        }
        int line = e.getLocation() == null ? 0 : e.getLocation().getLineNr();
        String message = e.getOriginalMessage();
        if (message.startsWith("Expected a field name")) {
            message = "a mapping key must be a plain value, not a mapping or a list";
        }
        int nl = message.indexOf('\n');
        return new ConfigException(file, Math.max(line, 0), "",
                "YAML syntax error: " + (nl < 0 ? message : message.substring(0, nl)));
    }
}
