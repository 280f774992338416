package io.loomgate.lab.bench;

/** A scenario named once and reading its sizes from the bench settings: the part every scenario shares. */
abstract class ConfiguredScenario implements Scenario {
    private final String name;
    final BenchSettings s;

    ConfiguredScenario(String name, BenchSettings settings) {
        this.name = name;
        this.s = settings;
    }

    @Override
    public final String name() {
        return name;
    }
}
