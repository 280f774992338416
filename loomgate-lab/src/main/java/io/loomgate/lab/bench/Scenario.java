package io.loomgate.lab.bench;

import java.io.IOException;
import java.util.List;

/** One experiment of the showdown: starts its processes, measures each model, stops them, returns its results. */
interface Scenario {

    String name();

    /** About how long it runs, for the time-left estimate. */
    double plannedSeconds();

    /** One result per setting measured (the hello scenario measures several connection counts). */
    List<BenchReport.ScenarioResult> run(BenchContext bench) throws IOException, InterruptedException;
}
