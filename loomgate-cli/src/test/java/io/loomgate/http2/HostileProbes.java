package io.loomgate.http2;

import io.loomgate.http2.ProbeListeners.Gateway;
import io.loomgate.http2.ProbeListeners.Kind;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BiConsumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.DynamicContainer;
import org.junit.jupiter.api.DynamicNode;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * A hostile probe across every listener kind (plain HTTP/1.1, HTTP/1.1 over TLS with JSSE and with Conscrypt, h2c by
 * prior knowledge, h2 over TLS with either provider), against gateways configured as the traffic matrix's (metrics,
 * the JSON access log, retries and a rate limit on). Each probe asserts a specific answer (a status, a GOAWAY or
 * RST_STREAM code, a close) within a deadline, and that a well-behaved client on another connection of the same
 * listener is served meanwhile. Single cases that other tests cover on one listener (SmugglingTest over plain
 * HTTP/1.1, Http2AttackDefencesTest over h2c) are repeated here on every listener they apply to; the rest are new.
 *
 * <p>This class is what the probe's classes share, one class per family of attack (session 61: the one class had
 * grown to 1,257 lines): {@link HostileHttp1ProbeTest}, {@link HostileHttp2ProbeTest},
 * {@link HostileSlowClientProbeTest}, {@link HostileTlsProbeTest}. Each has gateways of its own ({@link
 * ProbeListeners}, stopped after its last cell): two of these classes may run at once in
 * one JVM (each is CONCURRENT), and a probe that holds every connection of a gateway or floods it must never meet
 * another class's; they start with the class's first cell that runs. Here: the gateways' lifecycle, the factories
 * per gateway, each cell's wrapping (the -D filters, the known defects, the bystander) and the lanes of the cells
 * that wait.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS) // each class its own gateways, made once
abstract class HostileProbes {
    /** Runs only the probes whose listener label and name contain this, or one of its |-separated parts. */
    static final String ONLY_PROPERTY = "loomgate.probe.only";
    /**
     * Then leaves out the probes whose listener label and name contain one of this property's |-separated parts: a
     * pass that runs most of a kind but not the probes its axis does not change (the epoll pass and the TLS record
     * probes that JSSE's record layer answers whatever socket it reads from).
     */
    static final String SKIP_PROPERTY = "loomgate.probe.skip";
    /** Unique paths and ids across the classes' cells. */
    static final AtomicInteger IDS = new AtomicInteger();
    /**
     * This class's gateways, one per provider, and their origins: null until a cell needs them, and each gateway
     * then: those its kept cells use, started before its first cell runs.
     */
    private volatile ProbeListeners listeners;
    private final ReentrantLock starting = new ReentrantLock();

    /**
     * This class's gateways, made by the first cell that runs, with the gateways its kept cells use: a pass whose -D
     * filters leave none of a class's cells on a gateway (the epoll pass keeps {@code tls(jdk)}'s, the thread-model
     * pass the slow clients' and the silent TLS connections') starts none of it.
     */
    ProbeListeners listeners() {
        ProbeListeners l = listeners;
        if (l != null) {
            return l;
        }
        starting.lock(); // not synchronized: the start waits on sockets, and the cells run on virtual threads too
        try {
            if (listeners == null) {
                ProbeListeners made = new ProbeListeners(getClass().getSimpleName());
                // Every gateway a kept cell of this class uses, started and warmed one after another before the first
                // cell runs, as the one class's three were: started by each gateway's first cell instead, the TLS
                // gateways' cold warm-ups (7-12 s at load 15-20) ran beside the other gateways' first cells, and the
                // slowloris cell's bound failed on both TLS gateways in two runs of four (session 61, runs 18, 21).
                for (Gateway g : keptGateways()) {
                    made.ensureStarted(g);
                }
                listeners = made;
            }
            return listeners;
        } catch (Exception e) {
            throw new IllegalStateException("the probe's gateways did not start", e);
        } finally {
            starting.unlock();
        }
    }

    /** The gateways of the kept cells made so far (by the -D filters and the known defects). */
    private final java.util.Set<Gateway> kept = java.util.concurrent.ConcurrentHashMap.newKeySet();

    /** The gateways of this class's kept cells: its groups for every gateway, made (which notes them) and let go. */
    private java.util.Set<Gateway> keptGateways() {
        for (Gateway g : Gateway.values()) {
            groups(g, (name, probes) -> probes.forEach(p -> { }));
        }
        return java.util.EnumSet.copyOf(kept.isEmpty() ? java.util.EnumSet.noneOf(Gateway.class) : kept);
    }

    @AfterAll
    void stop() throws Exception {
        if (listeners != null) {
            listeners.close();
        }
    }

    /**
     * Probes that fail today for an open defect another branch owns: reported as skipped with the defect (run them with
     * {@code -D}{@value #KNOWN_PROPERTY}{@code =run}; a passing one then means "delete its line").
     */
    record Known(String why, java.util.function.BiPredicate<Kind, String> applies) {
    }

    static final String KNOWN_PROPERTY = "loomgate.probe.known";

    /**
     * Empty since the linger branch's merge: its cells (the seven floods over h2+tls(conscrypt), whose GOAWAY the
     * client sometimes did not see) passed in five runs after it, failing 1-3 of 7 in every run before.
     */
    static final List<Known> KNOWN = List.of();

    /** One probe on one listener, with a bystander beside it. */
    DynamicTest probe(Kind k, String name, Probe p) {
        return probe(k, name, p, null, null);
    }

    /**
     * A probe in {@code lane} (null: on the factory's thread, in its turn); {@code after} (null: none): lanes whose
     * probes end before this one starts, so that it runs alone on its gateway.
     */
    DynamicTest probe(Kind k, String name, Probe p, ProbeLanes.Lane lane, ProbeLanes after) {
        String known = KNOWN.stream().filter(x -> x.applies().test(k, name)).map(Known::why).findFirst()
                .orElse(null);
        if (known != null && !"run".equals(System.getProperty(KNOWN_PROPERTY))) {
            return DynamicTest.dynamicTest(name, () -> org.junit.jupiter.api.Assumptions.abort("known defect: "
                    + known));
        }
        String only = System.getProperty(ONLY_PROPERTY, "");
        if (java.util.Arrays.stream(only.split("\\|")).noneMatch((k.label + " " + name)::contains)) {
            return DynamicTest.dynamicTest(name, () -> org.junit.jupiter.api.Assumptions.abort("not in -D"
                    + ONLY_PROPERTY + "=" + only));
        }
        String skip = System.getProperty(SKIP_PROPERTY, "");
        if (java.util.Arrays.stream(skip.split("\\|")).filter(part -> !part.isEmpty())
                .anyMatch((k.label + " " + name)::contains)) {
            return DynamicTest.dynamicTest(name, () -> org.junit.jupiter.api.Assumptions.abort("in -D"
                    + SKIP_PROPERTY + "=" + skip));
        }
        Executable e = () -> {
            if (after != null) {
                after.awaitAll();
            }
            try (BystanderLoop b = listeners().bystander(k)) {
                p.run(k);
            }
        };
        kept.add(k.gateway);
        return DynamicTest.dynamicTest(name, lane != null ? lane.then(e) : e);
    }

    interface Probe {
        void run(Kind k) throws Exception;
    }

    /** The kinds of {@code kinds} that gateway {@code g} serves, each a container of its probes. */
    static Stream<DynamicNode> perKind(Gateway g, List<Kind> kinds,
                                               java.util.function.Function<Kind, List<DynamicTest>> f) {
        return kinds.stream().filter(k -> k.gateway == g).map(k -> DynamicContainer.dynamicContainer(k.label, f.apply(k)));
    }

    /*
     * One factory per gateway (plain, TLS with JSSE, TLS with Conscrypt), run side by side (each class is CONCURRENT;
     * JUnit's parallel mode is enabled in the module's surefire configuration), each gateway's probes one after
     * another (a factory holding a resource lock runs its dynamic tests on its own thread, in order). The gateways
     * share nothing a probe asserts on: each has its own listener, connection limit, origin and bystanders, so a
     * probe that holds every connection of one (idle connections over max-connections) or floods it never meets
     * another's. Most of a gateway's time is waiting out its bounds (header-timeout, read-timeout, idle-timeout: the
     * slow clients and the TLS stalls), 142 s in a row for the three; side by side it is the longest gateway's.
     * Within a gateway, the probes that wait out a bound (the slow clients and the TLS ones: 42 of a TLS gateway's
     * 49 s in run 35) run in lanes side by side as well (see waits()), all but the one that holds every connection.
     * The locks' names are the same in every subclass: two probe classes running at once in one JVM take turns on a
     * gateway kind (each on its own gateways), so at most three factories of the probe run at a time.
     */
    @TestFactory
    @ResourceLock("hostileprobe:PLAIN")
    Stream<DynamicNode> plain() {
        return on(Gateway.PLAIN);
    }

    @TestFactory
    @ResourceLock("hostileprobe:TLS_JDK")
    Stream<DynamicNode> tlsJdk() {
        return on(Gateway.TLS_JDK);
    }

    @TestFactory
    @ResourceLock("hostileprobe:TLS_CONSCRYPT")
    Stream<DynamicNode> tlsConscrypt() {
        return on(Gateway.TLS_CONSCRYPT);
    }

    /** Every probe of gateway {@code g}'s listeners, grouped by what it probes (the subclass's groups). */
    private Stream<DynamicNode> on(Gateway g) {
        List<DynamicNode> out = new ArrayList<>();
        groups(g, (name, probes) -> {
            List<DynamicNode> p = probes.toList();
            if (!p.isEmpty()) {
                out.add(DynamicContainer.dynamicContainer(name, p));
            }
        });
        return out.stream();
    }

    /** Hands each group of this class's probes on gateway {@code g} to {@code group}, by name, in order. */
    abstract void groups(Gateway g, BiConsumer<String, Stream<DynamicNode>> group);

    /** At most this many lanes of one gateway at once: each holds a connection or two and its bystander's. */
    static final int WAITS_AT_ONCE = 5;

    /**
     * One gateway's probes that mostly wait (slowloris, a slow body, a reader that never reads, a TLS handshake that
     * stalls or drips): in lanes side by side, each lane named by what it holds, so that at most {@value
     * #WAITS_AT_ONCE} lanes' connections (a probe uses at most 3, and its bystander one) stay well under the
     * listener's max-connections ({@value ProbeListeners#MAX_CONNECTIONS}). Nothing else a probe asserts on is
     * shared: each probe's connection and answer are its own, and the bystanders are one per probe.
     */
    static final class Waits {
        final ProbeLanes lanes = new ProbeLanes(WAITS_AT_ONCE, java.time.Duration.ofMinutes(3));
        private final java.util.Map<String, ProbeLanes.Lane> byName = new java.util.LinkedHashMap<>();
        private final Gateway gateway;

        Waits(Gateway gateway) {
            this.gateway = gateway;
        }

        /** The lane {@code name} of this gateway (its thread and printed times say both). */
        ProbeLanes.Lane lane(String name) {
            return byName.computeIfAbsent(name, n -> lanes.lane(gateway + " " + n));
        }
    }

    /** Whether this kind's origin got a request for {@code path}. */
    boolean originGot(Kind k, String path) {
        return listeners().origin(k).received().stream().anyMatch(r -> r.target().equals(path));
    }
}
