package io.loomgate.upstream;

import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * What an upstream is made of, as configuration says: its id, its endpoints, the limits of each endpoint's pool, how
 * requests are spread over the endpoints and kept away from bad ones, and how often host names are looked up again.
 * Pools are per endpoint and shared by every upstream that names the same endpoint.
 *
 * @param dnsRefresh how often each host name among the endpoints is resolved again, its addresses becoming the
 *                   endpoints ({@link DnsRefresh}); {@link Duration#ZERO} turns that off (the name is then looked up
 *                   on each dial, one endpoint whatever its addresses). Literal addresses are never looked up.
 */
public record UpstreamDefinition(String id, List<Endpoint> endpoints, PoolSettings settings, Balancing balancing,
                                 Duration dnsRefresh) {
    /** {@code dns-refresh}'s default. */
    public static final Duration DEFAULT_DNS_REFRESH = Duration.ofSeconds(30);

    public UpstreamDefinition {
        endpoints = List.copyOf(endpoints);
        if (endpoints.isEmpty()) {
            throw new IllegalArgumentException("upstream '" + id + "' has no endpoints");
        }
        if (balancing.weights().size() != endpoints.size()) {
            throw new IllegalArgumentException("upstream '" + id + "' has " + endpoints.size() + " endpoints but "
                    + balancing.weights().size() + " weights");
        }
        Objects.requireNonNull(dnsRefresh, "dnsRefresh");
        if (dnsRefresh.isNegative()) {
            throw new IllegalArgumentException("dns-refresh must not be negative, not " + dnsRefresh);
        }
    }

    /** With the default DNS refresh. */
    public UpstreamDefinition(String id, List<Endpoint> endpoints, PoolSettings settings, Balancing balancing) {
        this(id, endpoints, settings, balancing, DEFAULT_DNS_REFRESH);
    }

    /** Equal weights, least-request, no health checks, no outlier detection, the default DNS refresh. */
    public UpstreamDefinition(String id, List<Endpoint> endpoints, PoolSettings settings) {
        this(id, endpoints, settings, Balancing.defaults(endpoints.size()));
    }

    /** Whether host names are re-resolved. */
    public boolean refreshesDns() {
        return !dnsRefresh.isZero();
    }

    /** The same upstream with other pool settings (upstream TLS added by the composition root). */
    public UpstreamDefinition withSettings(PoolSettings other) {
        return new UpstreamDefinition(id, endpoints, other, balancing, dnsRefresh);
    }

    /**
     * The id's hash: equal definitions have equal ids. Not the record's own, which is bootstrapped by invokedynamic
     * ({@code java.lang.runtime.ObjectMethods}) at its first call and not held by JDK 25's AOT cache: the assembly's
     * set of upstreams spun method-handle classes at run time before the first answer. {@code equals} stays the
     * record's; a set of definitions calls it only for ids that hash alike.
     */
    @Override
    public int hashCode() {
        return Objects.hashCode(id);
    }
}
