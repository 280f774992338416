package io.loomgate.lab.bench;

import java.util.List;
import java.util.Map;

/**
 * {@code bench-report.html}: one self-contained page (inline CSS and SVG, no scripts, nothing fetched) with, per
 * scenario, a bar chart of requests/s per model, a chart of latency percentiles per model (log scale), and the
 * numbers as a table.
 */
final class HtmlReport {
    private static final String[] COLOURS = {"#8a8f98", "#2b7bb9", "#d9822b", "#3a9a5b"};

    private HtmlReport() {
    }

    static String render(BenchReport r) {
        StringBuilder h = new StringBuilder(16_384);
        h.append("<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>Loomgate showdown</title>\n")
                .append("<style>body{font:14px/1.4 system-ui,sans-serif;margin:2em;max-width:1100px;color:#222}")
                .append("table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ccc;padding:3px 8px;")
                .append("text-align:right}th:first-child,td:first-child{text-align:left}section{margin-bottom:2.5em}")
                .append(".charts{display:flex;gap:2em;flex-wrap:wrap}code{font-size:12px}</style></head><body>\n")
                .append("<h1>Loomgate showdown</h1>\n<p>JDK ").append(esc(r.jdk())).append(", ").append(r.cores())
                .append(" cores, heap ").append(esc(r.heap())).append(", started ").append(esc(r.startedAt()))
                .append("</p>\n");
        for (BenchReport.ScenarioResult s : r.scenarios()) {
            scenario(h, s);
        }
        h.append("<h2>Commands</h2>\n<ol>\n");
        for (String c : r.commands()) {
            h.append("<li><code>").append(esc(c)).append("</code></li>\n");
        }
        return h.append("</ol>\n</body></html>\n").toString();
    }

    private static void scenario(StringBuilder h, BenchReport.ScenarioResult s) {
        h.append("<section><h2>").append(esc(s.name())).append(" &mdash; ").append(s.connections())
                .append(" connections</h2>\n");
        if (s.multiplier() != null) {
            h.append("<p>multiplier: <b>").append(String.format("%.2f", s.multiplier())).append("x</b>");
            if (s.limitRequestsPerSecond() != null) {
                h.append(String.format("; limit %,.0f requests/s", s.limitRequestsPerSecond()));
            }
            h.append("</p>\n");
        }
        h.append("<div class=\"charts\">");
        boolean blocking = s.name().equals("blocking");
        h.append(bars(blocking ? "wall seconds" : "requests/s", s.models(), blocking));
        h.append(latencies(s.models()));
        h.append("</div>\n<table><tr><th>model</th><th>requests</th><th>req/s</th><th>p50 ms</th><th>p90 ms</th>")
                .append("<th>p99 ms</th><th>max ms</th><th>errors</th><th>CPU s</th><th>peak RSS MB</th>")
                .append("<th>wall s</th></tr>\n");
        for (BenchReport.ModelResult m : s.models()) {
            h.append(String.format("<tr><td>%s</td><td>%,d</td><td>%,.1f</td><td>%.1f</td><td>%.1f</td><td>%.1f</td>"
                            + "<td>%.1f</td><td>%,d</td><td>%.2f</td><td>%.1f</td><td>%.2f</td></tr>%n",
                    esc(m.model()), m.requests(), m.requestsPerSecond(), m.latencyMs().p50(), m.latencyMs().p90(),
                    m.latencyMs().p99(), m.latencyMs().max(), m.errors(), m.cpuSeconds(), m.peakRssMb(),
                    m.wallSeconds()));
        }
        h.append("</table>\n<ul>");
        for (Map.Entry<String, Object> d : s.details().entrySet()) {
            h.append("<li>").append(esc(d.getKey())).append(": ").append(esc(String.valueOf(d.getValue())))
                    .append("</li>");
        }
        h.append("</ul></section>\n");
    }

    /** Horizontal bars, one per model. */
    private static String bars(String title, List<BenchReport.ModelResult> models, boolean wall) {
        int rowH = 28;
        int width = 460;
        int labelW = 130;
        double max = models.stream().mapToDouble(m -> wall ? m.wallSeconds() : m.requestsPerSecond()).max()
                .orElse(1);
        StringBuilder svg = new StringBuilder();
        int height = 30 + rowH * models.size();
        svg.append(String.format("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" role=\"img\">"
                + "<text x=\"0\" y=\"16\" font-weight=\"bold\">%s</text>", width, height, esc(title)));
        for (int i = 0; i < models.size(); i++) {
            BenchReport.ModelResult m = models.get(i);
            double v = wall ? m.wallSeconds() : m.requestsPerSecond();
            double w = max > 0 ? (width - labelW - 90) * v / max : 0;
            int y = 26 + i * rowH;
            svg.append(String.format("<text x=\"0\" y=\"%d\">%s</text><rect x=\"%d\" y=\"%d\" width=\"%.1f\" "
                            + "height=\"%d\" fill=\"%s\"/><text x=\"%.1f\" y=\"%d\">%,.1f</text>", y + 15,
                    esc(m.model()), labelW, y, w, rowH - 8, COLOURS[i % COLOURS.length], labelW + w + 5, y + 15, v));
        }
        return svg.append("</svg>").toString();
    }

    /** Grouped columns p50/p90/p99/max per model on a log scale (latencies span orders of magnitude). */
    private static String latencies(List<BenchReport.ModelResult> models) {
        int width = 460;
        int height = 220;
        int base = height - 30;
        String[] names = {"p50", "p90", "p99", "max"};
        double top = models.stream().mapToDouble(m -> m.latencyMs().max()).max().orElse(1);
        double logTop = Math.log10(Math.max(top, 1) * 1.2);
        double logBottom = -1; // 0.1 ms
        StringBuilder svg = new StringBuilder(String.format("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
                + "height=\"%d\" role=\"img\"><text x=\"0\" y=\"16\" font-weight=\"bold\">latency ms (log scale)"
                + "</text>", width, height));
        for (double tick = 0.1; Math.log10(tick) <= logTop; tick *= 10) {
            double y = base - (Math.log10(tick) - logBottom) / (logTop - logBottom) * (base - 30);
            svg.append(String.format("<line x1=\"36\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>"
                    + "<text x=\"0\" y=\"%.1f\" font-size=\"11\">%s</text>", width, y, y, y + 4,
                    tick < 1 ? "0.1" : String.format("%,.0f", tick)));
        }
        int groupW = (width - 40) / names.length;
        int barW = Math.max(6, (groupW - 16) / Math.max(1, models.size()));
        for (int g = 0; g < names.length; g++) {
            int gx = 40 + g * groupW;
            svg.append(String.format("<text x=\"%d\" y=\"%d\">%s</text>", gx + 4, height - 10, names[g]));
            for (int i = 0; i < models.size(); i++) {
                BenchReport.LatencyMs l = models.get(i).latencyMs();
                double v = switch (g) {
                    case 0 -> l.p50();
                    case 1 -> l.p90();
                    case 2 -> l.p99();
                    default -> l.max();
                };
                double frac = (Math.log10(Math.max(v, 0.1)) - logBottom) / (logTop - logBottom);
                double barH = Math.max(1, frac * (base - 30));
                svg.append(String.format("<rect x=\"%d\" y=\"%.1f\" width=\"%d\" height=\"%.1f\" fill=\"%s\">"
                                + "<title>%s %s %.2f ms</title></rect>", gx + i * barW, base - barH, barW - 2, barH,
                        COLOURS[i % COLOURS.length], esc(models.get(i).model()), names[g], v));
            }
        }
        for (int i = 0; i < models.size(); i++) {
            svg.append(String.format("<rect x=\"%d\" y=\"24\" width=\"10\" height=\"10\" fill=\"%s\"/>"
                    + "<text x=\"%d\" y=\"33\">%s</text>", 200 + i * 130, COLOURS[i % COLOURS.length], 214 + i * 130,
                    esc(models.get(i).model())));
        }
        return svg.append("</svg>").toString();
    }

    private static String esc(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }
}
