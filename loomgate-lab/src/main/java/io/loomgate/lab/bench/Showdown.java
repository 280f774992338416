package io.loomgate.lab.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The one-command showdown: runs the chosen scenarios one after another, each thread model in a fresh JVM started
 * from the same jar and the load generator in a process of its own, prints a table per scenario, and writes
 * {@code bench-report.json} and {@code bench-report.html} into the output directory with the logs, generated
 * configurations and JFR recordings. A scenario that fails is reported (its error in {@code details}) and the
 * others still run.
 *
 * @param settings what to run, and where the reports go
 * @param console  where the tables and the report paths are printed
 * @param terminal whether standard error is a terminal, where the progress board redraws its line
 */
public record Showdown(BenchSettings settings, PrintStream console, boolean terminal) {

    /** Runs everything and writes the reports; returns the report. */
    public BenchReport run() throws IOException, InterruptedException {
        ProgressBoard board = new ProgressBoard(System.err, terminal);
        Files.createDirectories(settings.outDir());
        String started = OffsetDateTime.now(ZoneOffset.UTC).truncatedTo(ChronoUnit.SECONDS).toString();
        Launcher launcher = new Launcher(settings.java(), settings.jar(), settings.heap(), settings.outDir());
        BenchContext bench = new BenchContext(settings, launcher, new LoadRunner(launcher, board), board);
        List<Scenario> scenarios = settings.scenarios().stream().map(this::scenario).toList();
        board.plan(scenarios.stream().mapToDouble(Scenario::plannedSeconds).sum());
        console.printf("loomgate bench: %s on JDK %s, %d cores; reports and logs in %s%n", settings.scenarios(),
                Runtime.version(), Runtime.getRuntime().availableProcessors(), settings.outDir().toAbsolutePath());
        List<BenchReport.ScenarioResult> results = new ArrayList<>();
        for (Scenario scenario : scenarios) {
            List<BenchReport.ScenarioResult> done;
            try {
                done = scenario.run(bench);
            } catch (IOException e) {
                Map<String, Object> details = new LinkedHashMap<>();
                details.put("error", e.getMessage());
                done = List.of(new BenchReport.ScenarioResult(scenario.name(), 0, null, null, List.of(), details));
            }
            board.clear();
            for (BenchReport.ScenarioResult r : done) {
                ConsoleTable.print(r, console);
            }
            results.addAll(done);
        }
        BenchReport report = new BenchReport(Runtime.version().toString(), Runtime.getRuntime().availableProcessors(),
                settings.heap(), started, launcher.commands(), results);
        Path json = settings.outDir().resolve("bench-report.json");
        Path html = settings.outDir().resolve("bench-report.html");
        new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(json.toFile(), report);
        Files.writeString(html, HtmlReport.render(report));
        console.printf("%nreports: %s and %s%n", json, html);
        return report;
    }

    private Scenario scenario(String name) {
        return switch (name) {
            case "proxy" -> new ProxyScenario(settings);
            case "hello" -> new HelloScenario(settings);
            case "blocking" -> new BlockingScenario(settings);
            case "db" -> new DbScenario(settings);
            case "pinning" -> new PinningScenario(settings);
            default -> throw new IllegalArgumentException("unknown scenario " + name);
        };
    }
}
