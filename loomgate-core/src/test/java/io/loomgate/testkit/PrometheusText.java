package io.loomgate.testkit;

import java.util.ArrayList;
import java.util.List;

/**
 * Reads sample values out of a Prometheus text exposition: by exact series name and {@code key=value} labels, in any
 * order (the exposition sorts labels by name).
 */
public final class PrometheusText {
    private final String text;

    public PrometheusText(String text) {
        this.text = text;
    }

    /**
     * The value of the one sample whose name is {@code name} and whose labels include every {@code k=v} given
     * (matched as {@code k="v"}).
     *
     * @throws AssertionError naming what was found when there is not exactly one such sample
     */
    public double value(String name, String... labels) {
        List<String> found = new ArrayList<>();
        for (String line : text.split("\n")) {
            if (line.startsWith("#")) {
                continue;
            }
            int brace = line.indexOf('{');
            int space = line.lastIndexOf(' ');
            String series = brace >= 0 ? line.substring(0, brace) : line.substring(0, space);
            if (!series.equals(name)) {
                continue;
            }
            boolean all = true;
            for (String label : labels) {
                all &= line.contains(label.replace("=", "=\"") + "\"");
            }
            if (all) {
                found.add(line);
            }
        }
        if (found.size() != 1) {
            throw new AssertionError("expected one sample " + name + " " + List.of(labels) + ", found " + found);
        }
        String line = found.get(0);
        return Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
    }

    public boolean has(String name) {
        return text.lines().anyMatch(l -> l.startsWith(name + "{") || l.startsWith(name + " "));
    }

    @Override
    public String toString() {
        return text;
    }
}
