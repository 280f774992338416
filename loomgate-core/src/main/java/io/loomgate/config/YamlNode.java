package io.loomgate.config;

import java.util.List;

/**
 * A YAML document as a tree whose every node remembers the 1-based line it started on, so configuration errors can
 * point at the line. Scalars keep their text (after environment substitution); typing is done by whoever reads them.
 */
sealed interface YamlNode permits YamlNode.Scalar, YamlNode.Mapping, YamlNode.Sequence {

    int line();

    /** How the node reads in a message: {@code 'abc'}, {@code a list}, {@code a mapping}, {@code nothing}. */
    String describe();

    /**
     * @param text   the value; empty for a null
     * @param isNull written as nothing, {@code ~} or {@code null}
     * @param isBool parsed as a YAML boolean ({@code true}, {@code false}, {@code yes}, {@code no}…)
     */
    record Scalar(String text, int line, boolean isNull, boolean isBool) implements YamlNode {
        @Override
        public String describe() {
            return isNull ? "nothing" : "'" + text + "'";
        }
    }

    /** Keys in file order; duplicate keys are refused while reading. */
    record Mapping(List<Entry> entries, int line) implements YamlNode {
        @Override
        public String describe() {
            return "a mapping";
        }
    }

    record Entry(String key, int line, YamlNode value) {
    }

    record Sequence(List<YamlNode> items, int line) implements YamlNode {
        @Override
        public String describe() {
            return "a list";
        }
    }
}
