package io.loomgate.config;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.error.Mark;
import org.yaml.snakeyaml.error.MarkedYAMLException;
import org.yaml.snakeyaml.error.YAMLException;
import org.yaml.snakeyaml.events.AliasEvent;
import org.yaml.snakeyaml.events.Event;
import org.yaml.snakeyaml.events.ScalarEvent;
import org.yaml.snakeyaml.nodes.NodeId;
import org.yaml.snakeyaml.nodes.Tag;
import org.yaml.snakeyaml.parser.ParserImpl;
import org.yaml.snakeyaml.reader.StreamReader;
import org.yaml.snakeyaml.resolver.Resolver;

/**
 * Reads one YAML document into {@link YamlNode}s from SnakeYAML's event stream, keeping each node's line and
 * substituting environment variables in scalar values (never in keys or comments, so lines stay exact and a
 * variable's value cannot change the document's structure). One instance reads one document.
 * <p>
 * The events are SnakeYAML's parser's own, read without Jackson's YAML parser on top (which this class used until
 * session 44, and whose typing of scalars it keeps: {@link #scalar}): Jackson's parser base class initialises
 * {@code java.math.BigDecimal}, whose class initialiser on JDK 25 squares powers of five up to millions of bits
 * (about 10 ms, interpreted, on the way to the first answer; docs/architecture.md, "Start-up").
 */
final class YamlReader {
    /** The nesting of mappings and lists refused, as Jackson's default limit did (and before the stack runs out). */
    static final int MAX_DEPTH = 1000;
    private static final String YAML_TAG = "tag:yaml.org,2002:";
    /** YAML 1.1's implicit types of plain scalars (null, booleans, numbers), as Jackson's parser resolved them. */
    private static final Resolver RESOLVER = new Resolver();

    private final String file;
    /** Null: leave {@code ${...}} as written (for import-scg, whose output keeps the placeholders). */
    private final Map<String, String> env;
    private ParserImpl events;
    /** The last event read: a syntax error without a mark of its own is reported at its end. */
    private Event last;

    private YamlReader(String file, Map<String, String> env) {
        this.file = file;
        this.env = env;
    }

    /** As {@link #read}, with {@code ${...}} left as written. */
    static YamlNode readUnsubstituted(String yaml, String file) throws ConfigException {
        return new YamlReader(file, null).document(yaml);
    }

    /**
     * @return the document's root node
     * @throws ConfigException for syntax errors (with the parser's line), an empty document, several documents,
     *                         aliases, duplicate keys and failed substitutions
     */
    static YamlNode read(String yaml, String file, Map<String, String> env) throws ConfigException {
        return new YamlReader(file, env).document(yaml);
    }

    private YamlNode document(String yaml) throws ConfigException {
        events = new ParserImpl(new StreamReader(yaml), new LoaderOptions());
        try {
            Event first = nextContent();
            if (first == null) {
                throw new ConfigException(file, 0, "", "the file is empty; expected at least a 'routes:' list");
            }
            YamlNode root = value(first, "", 0);
            Event extra = nextContent();
            if (extra != null) {
                throw new ConfigException(file, line(extra), "", "expected one YAML document, found another ('---')");
            }
            return root;
        } catch (MarkedYAMLException e) {
            if (e.getProblemMark() == null) {
                throw syntaxError(e);
            }
            String context = e.getContext() == null ? "" : " (" + e.getContext() + ")";
            throw new ConfigException(file, e.getProblemMark().getLine() + 1, "",
                    "YAML syntax error: " + e.getProblem() + context);
        } catch (YAMLException | NumberFormatException e) { // SnakeYAML's limits; a number its scanner cannot read
            throw syntaxError(e);
        }
    }

    /** The next event that starts a node, past document markers; null at the end of the stream. */
    private Event nextContent() {
        while (true) {
            Event e = next();
            switch (e.getEventId()) {
                case StreamStart, DocumentStart, DocumentEnd -> {
                    continue;
                }
                case StreamEnd -> {
                    return null;
                }
                default -> {
                    return e;
                }
            }
        }
    }

    private Event next() {
        last = events.getEvent();
        return last;
    }

    private YamlNode value(Event event, String path, int depth) throws ConfigException {
        int line = line(event);
        return switch (event.getEventId()) {
            case Alias -> throw new ConfigException(file, line, path, "YAML aliases (*"
                    + ((AliasEvent) event).getAnchor() + ") are not supported; write the value out");
            case MappingStart -> mapping(path, line, nested(depth, line));
            case SequenceStart -> sequence(path, line, nested(depth, line));
            case Scalar -> scalar((ScalarEvent) event, path, line);
            // SnakeYAML's parser gives a node (an empty scalar for a missing one) wherever a value belongs
            default -> throw new ConfigException(file, line, path, "YAML syntax error: expected a value, found "
                    + event.getEventId());
        };
    }

    private int nested(int depth, int line) throws ConfigException {
        if (depth >= MAX_DEPTH) {
            throw new ConfigException(file, line, "", "YAML syntax error: mappings and lists nested more than "
                    + MAX_DEPTH + " deep");
        }
        return depth + 1;
    }

    private YamlNode.Mapping mapping(String path, int line, int depth) throws ConfigException {
        List<YamlNode.Entry> entries = new ArrayList<>();
        Map<String, Integer> seen = new HashMap<>();
        Event e;
        while ((e = next()).getEventId() != Event.ID.MappingEnd) {
            if (!(e instanceof ScalarEvent k)) {
                throw new ConfigException(file, line(e.getEndMark()), "",
                        "YAML syntax error: a mapping key must be a plain value, not a mapping or a list");
            }
            String key = k.getValue();
            int keyLine = line(k);
            String keyPath = path.isEmpty() ? key : path + "." + key;
            Integer before = seen.putIfAbsent(key, keyLine);
            if (before != null) {
                throw new ConfigException(file, keyLine, path, "duplicate key '" + key + "' (first at line "
                        + before + ")");
            }
            entries.add(new YamlNode.Entry(key, keyLine, value(next(), keyPath, depth)));
        }
        return new YamlNode.Mapping(List.copyOf(entries), line);
    }

    private YamlNode.Sequence sequence(String path, int line, int depth) throws ConfigException {
        List<YamlNode> items = new ArrayList<>();
        Event e;
        while ((e = next()).getEventId() != Event.ID.SequenceEnd) {
            items.add(value(e, path + "[" + items.size() + "]", depth));
        }
        return new YamlNode.Sequence(List.copyOf(items), line);
    }

    /**
     * A scalar typed as Jackson's YAML parser typed it (its defaults: an empty plain value is null): a plain scalar
     * by YAML 1.1's implicit types (null: nothing, {@code ~}, {@code null}; booleans: {@code true}, {@code yes},
     * {@code on}, ... in three spellings each), a quoted one is text, and of the explicit tags {@code !!null} and
     * {@code !!bool} (which also takes {@code y} and {@code n}) count. Numbers are text here, as written.
     */
    private YamlNode scalar(ScalarEvent s, String path, int line) throws ConfigException {
        String text = s.getValue();
        String tag = s.getTag();
        if (tag == null || tag.equals("!")) {
            Tag implicit = RESOLVER.resolve(NodeId.scalar, text, s.getImplicit().canOmitTagInPlainScalar());
            if (implicit.equals(Tag.NULL)) {
                return new YamlNode.Scalar("", line, true, false);
            }
            if (implicit.equals(Tag.BOOL) && isYamlBoolean(text)) {
                return new YamlNode.Scalar(text, line, false, true);
            }
        } else {
            String type = tag.startsWith(YAML_TAG) ? tag.substring(YAML_TAG.length()).split(",", -1)[0] : tag;
            if (type.equals("bool") && isYamlBoolean(text)) {
                return new YamlNode.Scalar(text, line, false, true);
            }
            if (type.equals("null") && !text.isEmpty()) {
                return new YamlNode.Scalar("", line, true, false);
            }
        }
        return new YamlNode.Scalar(substitute(text, path, line), line, false, false);
    }

    /** Jackson's YAML booleans: y, n, yes, no, on, off, true, false in any case (the resolver's are a subset). */
    private static boolean isYamlBoolean(String text) {
        return switch (text.length()) {
            case 1 -> "yYnN".indexOf(text.charAt(0)) >= 0;
            case 2 -> text.equalsIgnoreCase("no") || text.equalsIgnoreCase("on");
            case 3 -> text.equalsIgnoreCase("yes") || text.equalsIgnoreCase("off");
            case 4 -> text.equalsIgnoreCase("true");
            case 5 -> text.equalsIgnoreCase("false");
            default -> false;
        };
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

    private static int line(Event e) {
        return line(e.getStartMark());
    }

    private static int line(Mark m) {
        return m == null ? 0 : m.getLine() + 1;
    }

    /** A problem without a mark (SnakeYAML's size limit, a number its scanner cannot read): at the last event read. */
    private ConfigException syntaxError(RuntimeException e) {
        String message = String.valueOf(e.getMessage());
        int nl = message.indexOf('\n');
        return new ConfigException(file, last == null ? 0 : line(last.getEndMark()), "",
                "YAML syntax error: " + (nl < 0 ? message : message.substring(0, nl)));
    }
}
