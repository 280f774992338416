package io.loomgate.upstream;

import io.loomgate.threads.ConnectionExecutors;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.InetAddress;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Re-resolves the host names of upstreams with {@code dns-refresh} on, never on a request's path: one virtual thread
 * per name looks it up every interval (±10% jitter, so a fleet of gateways does not ask in step), and when the set of
 * addresses changed, hands the new set to {@link Upstreams}, which makes each address an endpoint.
 *
 * <p>Every lookup has a deadline ({@link #LOOKUP_TIMEOUT}): the JDK's resolver has none, so it runs on a thread of its
 * own and the name's thread stops waiting for it; a lookup still outstanding at the next round is waited for again
 * rather than started twice. A failed or late lookup changes nothing: the last good set stays, and the failure is
 * logged when it starts or its reason changes, and again when the name resolves again (not every round).
 *
 * <p>What counts is the set, not the order (DNS servers rotate records): an answer is reduced to one address family
 * (the family of the first address, which the JDK puts first: IPv4 unless {@code java.net.preferIPv6Addresses}),
 * without duplicates, sorted. One family, as Envoy's default lookup family does: a dual-stack instance is one
 * endpoint, not two, and an origin that listens on IPv4 only is not sent half its traffic over IPv6.
 *
 * <p>Lifecycle: {@link #start()} once, {@link #stop()} once; stop wakes every thread and they end.
 */
final class DnsRefresh {
    /** The longest a lookup may take (glibc's resolver gives up after 5 s per server try by default). */
    static final Duration LOOKUP_TIMEOUT = Duration.ofSeconds(5);
    private static final Logger log = LoggerFactory.getLogger(DnsRefresh.class);

    /** Receives a name's new set of addresses. Called on the name's thread; may take a lock, must not block long. */
    @FunctionalInterface
    interface Listener {
        void resolved(String name, List<InetAddress> addresses);
    }

    private final NameResolver resolver;
    private final Map<String, Duration> intervals;
    private final Map<String, List<InetAddress>> initial;
    private final Listener listener;
    private final Duration lookupTimeout;
    private final CountDownLatch stopped = new CountDownLatch(1);
    private final List<Thread> threads = new ArrayList<>();

    /**
     * @param intervals each name to refresh, with how often
     * @param initial   the addresses each name had when the upstreams were built; a name missing here did not
     *                  resolve then (its endpoint is dialled by name until it does)
     */
    DnsRefresh(NameResolver resolver, Map<String, Duration> intervals, Map<String, List<InetAddress>> initial,
               Listener listener, Duration lookupTimeout) {
        this.resolver = resolver;
        this.intervals = Map.copyOf(intervals);
        this.initial = Map.copyOf(initial);
        this.listener = listener;
        this.lookupTimeout = lookupTimeout;
    }

    void start() {
        intervals.forEach((name, interval) -> threads.add(ConnectionExecutors.startVirtual("loomgate-dns-" + name,
                new NameLoop(name, interval, initial.get(name))::run)));
    }

    void stop() {
        stopped.countDown();
        threads.forEach(Thread::interrupt);
    }

    /** The names' threads, for tests that wait for them to end. */
    List<Thread> threads() {
        return threads;
    }

    /** One name's refresh: its last good set and whether its lookups are failing. Owned by its thread. */
    private final class NameLoop {
        private final String name;
        private final long intervalNanos;
        private List<InetAddress> last;
        private String failing;
        private CompletableFuture<List<InetAddress>> pending;

        NameLoop(String name, Duration interval, List<InetAddress> initial) {
            this.name = name;
            this.intervalNanos = interval.toNanos();
            this.last = initial;
            this.failing = initial == null ? "did not resolve at start" : null;
        }

        void run() {
            try {
                while (!stopped.await(jittered(), TimeUnit.NANOSECONDS)) {
                    refresh();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt(); // stop() interrupts to end the wait at once
            }
        }

        private long jittered() {
            long jitter = intervalNanos / 10;
            return intervalNanos - jitter + ThreadLocalRandom.current().nextLong(2 * jitter + 1);
        }

        private void refresh() throws InterruptedException {
            List<InetAddress> now;
            try {
                now = usable(await());
            } catch (IOException e) {
                String why = describe(e);
                if (!why.equals(failing)) {
                    log.warn("upstream host '{}': lookup failed ({}); keeping {} until a lookup succeeds "
                            + "(logged again when the reason changes)", name, why,
                            last == null ? "dialling it by name" : "its addresses " + text(last));
                }
                failing = why;
                return;
            }
            if (failing != null) {
                log.info("upstream host '{}' resolves again: {}", name, text(now));
                failing = null;
            }
            if (!now.equals(last)) {
                log.info("upstream host '{}' now resolves to {} (was {})", name, text(now),
                        last == null ? "unresolved" : text(last));
                listener.resolved(name, now);
                last = now;
            }
        }

        /** This round's answer: the lookup still outstanding from the last round, or a new one. */
        private List<InetAddress> await() throws IOException, InterruptedException {
            if (pending == null || pending.isDone()) {
                pending = startLookup(resolver, name); // a late answer done since is older than a fresh one
            }
            try {
                List<InetAddress> answer = pending.get(lookupTimeout.toNanos(), TimeUnit.NANOSECONDS);
                pending = null;
                return answer;
            } catch (TimeoutException e) {
                throw new SocketTimeoutException("no answer within " + lookupTimeout.toMillis() + " ms");
            } catch (ExecutionException e) {
                pending = null;
                throw asIOException(e.getCause());
            }
        }
    }

    /**
     * Resolves names at once, each on its own thread, all within one deadline: for building upstreams (start-up, a
     * live reload). Names that fail are left out and logged.
     */
    static Map<String, List<InetAddress>> resolveAll(NameResolver resolver, Collection<String> names,
                                                     Duration timeout) {
        Map<String, CompletableFuture<List<InetAddress>>> lookups = new LinkedHashMap<>();
        for (String name : names) {
            lookups.put(name, startLookup(resolver, name));
        }
        long deadline = System.nanoTime() + timeout.toNanos();
        Map<String, List<InetAddress>> out = new LinkedHashMap<>();
        for (Map.Entry<String, CompletableFuture<List<InetAddress>>> e : lookups.entrySet()) {
            try {
                out.put(e.getKey(), usable(e.getValue().get(Math.max(0, deadline - System.nanoTime()),
                        TimeUnit.NANOSECONDS)));
            } catch (TimeoutException t) {
                log.warn("upstream host '{}': no answer within {} ms; dialled by name until a refresh resolves it",
                        e.getKey(), timeout.toMillis());
            } catch (ExecutionException | IOException x) {
                log.warn("upstream host '{}' does not resolve ({}); dialled by name until a refresh resolves it",
                        e.getKey(), describe(asIOException(x instanceof ExecutionException ee ? ee.getCause() : x)));
            } catch (InterruptedException x) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        return out;
    }

    private static CompletableFuture<List<InetAddress>> startLookup(NameResolver resolver, String name) {
        CompletableFuture<List<InetAddress>> answer = new CompletableFuture<>();
        ConnectionExecutors.startVirtual("loomgate-dns-lookup-" + name, () -> {
            try {
                answer.complete(resolver.resolve(name));
            } catch (Throwable t) {
                answer.completeExceptionally(t);
            }
        });
        return answer;
    }

    /** An answer as the set it stands for: the first address's family, no duplicates, sorted by address. */
    static List<InetAddress> usable(List<InetAddress> answer) throws UnknownHostException {
        if (answer == null || answer.isEmpty()) {
            throw new UnknownHostException("no addresses");
        }
        Class<?> family = answer.get(0).getClass();
        LinkedHashSet<InetAddress> set = new LinkedHashSet<>();
        for (InetAddress a : answer) {
            if (a.getClass() == family) {
                set.add(a);
            }
        }
        List<InetAddress> sorted = new ArrayList<>(set);
        sorted.sort(Comparator.comparing(InetAddress::getAddress, Arrays::compareUnsigned));
        return List.copyOf(sorted);
    }

    private static IOException asIOException(Throwable t) {
        if (t instanceof IOException io) {
            return io;
        }
        if (t instanceof InterruptedException) {
            return new InterruptedIOException("interrupted");
        }
        return new IOException(String.valueOf(t), t);
    }

    private static String describe(IOException e) {
        return e instanceof UnknownHostException ? "unknown host" + (e.getMessage() == null ? ""
                : ": " + e.getMessage()) : e.toString();
    }

    private static String text(List<InetAddress> addresses) {
        return addresses.stream().map(InetAddress::getHostAddress).toList().toString();
    }
}
