package io.loomgate.ratelimit;

import io.loomgate.extension.ArgumentException;
import io.loomgate.extension.ExtensionArgs;
import io.loomgate.filter.FilterFactory;
import io.loomgate.filter.GatewayFilter;
import java.util.List;
import java.util.Map;

/**
 * Builds {@code RequestRateLimiter} filters from a route's arguments. Loomgate's spelling ({@code replenish-rate},
 * {@code burst-capacity}, {@code requested-tokens}, {@code key-resolver}, {@code store}, {@code deny-empty-key}, {@code max-keys}) and
 * Spring Cloud Gateway's ({@code redis-rate-limiter.replenishRate}, {@code .burstCapacity}, {@code .requestedTokens},
 * {@code keyResolver}, {@code denyEmptyKey}, and {@code maxKeys} in the same style) are both accepted; SCG's {@code redis-rate-limiter.*} selects the Redis
 * store, so an SCG route carries over unchanged.
 */
record RequestRateLimiterFactory(RateLimiting owner) implements FilterFactory {
    static final String NAME = "RequestRateLimiter";
    private static final String SCG = "redis-rate-limiter.";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public List<String> argNames() {
        return List.of("replenish-rate", "burst-capacity", "requested-tokens", "key-resolver", "store",
                "deny-empty-key", "max-keys", SCG + "replenishRate", SCG + "burstCapacity", SCG + "requestedTokens",
                "keyResolver", "denyEmptyKey", "maxKeys");
    }

    @Override
    public GatewayFilter create(Map<String, String> args) {
        return create(null, args);
    }

    /** As {@link #create(Map)}, for the route {@code routeId}: a reloading gateway keeps its buckets by it. */
    @Override
    public GatewayFilter create(String routeId, Map<String, String> args) {
        Arg a = new Arg(args);
        String scgArg = args.keySet().stream().filter(k -> k.startsWith(SCG)).findFirst().orElse(null);
        String store = a.text("store", null);
        if (store == null) {
            store = scgArg != null ? "redis" : "local";
        } else if (!store.equals("local") && !store.equals("redis")) {
            throw new ArgumentException("store", "store: expected local or redis, got '" + store + "'");
        } else if (scgArg != null && store.equals("local")) {
            throw new ArgumentException("store", "store: local, but redis-rate-limiter.* arguments select the Redis "
                    + "store; write replenish-rate and burst-capacity for a local limit");
        }
        int rate = a.integer("replenish-rate", SCG + "replenishRate", null);
        int burst = a.integer("burst-capacity", SCG + "burstCapacity", rate);
        int requested = a.integer("requested-tokens", SCG + "requestedTokens", 1);
        RateLimit limit = a.limit(rate, burst, requested);
        String resolverArg = a.writtenAs("key-resolver", "keyResolver");
        String resolver = a.either("key-resolver", "keyResolver");
        KeyResolver keys;
        try {
            keys = KeyResolver.parse(resolver == null ? "client-ip" : resolver);
        } catch (IllegalArgumentException e) {
            throw new ArgumentException(resolverArg, e.getMessage());
        }
        boolean deny = a.bool("deny-empty-key", "denyEmptyKey", true);
        int maxKeys = a.integer("max-keys", "maxKeys", LocalStore.DEFAULT_CAPACITY);
        RateLimitStore chosen;
        try {
            chosen = owner.store(store, maxKeys, new LimiterSettings(routeId, store, limit, resolver == null ? "client-ip"
                    : resolver, maxKeys));
        } catch (IllegalArgumentException e) {
            throw new ArgumentException(args.containsKey("store") ? "store" : scgArg, e.getMessage());
        }
        return new RequestRateLimiterFilter(limit, keys, deny, chosen, owner.listener());
    }

    /**
     * Reads one argument under either of its spellings (Loomgate's and SCG's), the value itself with the one value
     * grammar; every failure names the spelling as written.
     */
    private record Arg(ExtensionArgs values) {
        Arg(Map<String, String> args) {
            this(new ExtensionArgs(args));
        }

        String text(String name, String otherwise) {
            return values.optional(name, otherwise);
        }

        /** The value under {@code name} or {@code alias}; refuses both at once. */
        String either(String name, String alias) {
            String a = text(name, null);
            String b = text(alias, null);
            if (a != null && b != null) {
                throw new ArgumentException(alias, "'" + name + "' and '" + alias + "' are the same argument; "
                        + "write one of them");
            }
            return a != null ? a : b;
        }

        /** The spelling used, for messages and lines: {@code name} unless only {@code alias} was written. */
        String writtenAs(String name, String alias) {
            return text(name, null) == null && text(alias, null) != null ? alias : name;
        }

        /** The bucket, each refusal pinned to the argument it is about. */
        RateLimit limit(int rate, int burst, int requested) {
            String rateArg = writtenAs("replenish-rate", SCG + "replenishRate");
            String burstArg = writtenAs("burst-capacity", SCG + "burstCapacity");
            String requestedArg = writtenAs("requested-tokens", SCG + "requestedTokens");
            try {
                return new RateLimit(rate, burst, requested);
            } catch (IllegalArgumentException e) {
                // burst-capacity below the rate or the cost: written by burst-capacity, or implied by its default
                boolean burstWritten = text(burstArg, null) != null;
                throw new ArgumentException(burstWritten ? burstArg : requested > burst ? requestedArg : rateArg,
                        e.getMessage());
            }
        }

        /** A whole number of at least 1 (every count this filter takes), or {@code otherwise}. */
        int integer(String name, String alias, Integer otherwise) {
            if (either(name, alias) == null) {
                if (otherwise == null) {
                    throw new IllegalArgumentException("missing argument '" + name + "' (tokens per second)");
                }
                return otherwise;
            }
            return values.intAtLeast(writtenAs(name, alias), 0, 1);
        }

        boolean bool(String name, String alias, boolean otherwise) {
            either(name, alias);
            return values.bool(writtenAs(name, alias), otherwise);
        }
    }
}
