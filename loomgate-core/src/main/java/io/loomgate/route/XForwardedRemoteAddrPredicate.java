package io.loomgate.route;

import io.loomgate.http.Cidr;
import io.loomgate.http.IpLiteral;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;

/**
 * Spring Cloud Gateway's {@code XForwardedRemoteAddr=192.168.1.0/24}: holds when the address taken from
 * {@code X-Forwarded-For} is in one of the ranges. As SCG's {@code XForwardedRemoteAddressResolver}: the entry
 * {@code maxTrustedIndex} from the right (default 1, the one the nearest proxy appended; the leftmost when the list is
 * shorter); with no {@code X-Forwarded-For}, or with several fields of it (SCG distrusts those), the client address
 * {@code RemoteAddr} uses. Like SCG's, it trusts the list the gateway received from the proxies in front, which must
 * append to it (docs/configuration.md says so). The gateway cleans forwarding fields before routing (an untrusted
 * peer's list is replaced by the peer's address, a trusted proxy's has the peer appended: docs/security.md), so the
 * last entry is always the gateway's own addition and is left out first: what remains is the list as SCG, standing
 * where the gateway stands, would read it (and an untrusted peer's leaves nothing, so its own address decides). An
 * entry that is not an IP literal matches nothing (no DNS).
 */
record XForwardedRemoteAddrPredicate(List<Cidr> sources, int maxTrustedIndex) implements RoutePredicate {
    static final PredicateFactory FACTORY = new BuiltinPredicateFactory("XForwardedRemoteAddr",
            List.of("sources", "maxTrustedIndex"), true, args -> new XForwardedRemoteAddrPredicate(
                    RemoteAddrPredicate.ranges(args.list("sources")),
                    args.optional("maxTrustedIndex", null) == null ? 1 : args.intAtLeast("maxTrustedIndex", 1)));

    XForwardedRemoteAddrPredicate {
        sources = List.copyOf(sources);
    }

    @Override
    public boolean test(PredicateContext context) {
        return RemoteAddrPredicate.inAny(sources, forwardedAddress(context));
    }

    private InetAddress forwardedAddress(PredicateContext context) {
        List<String> fields = context.request().headers().all("X-Forwarded-For");
        if (fields.size() != 1) {
            return context.clientIp();
        }
        List<String> hops = new ArrayList<>();
        for (String hop : fields.getFirst().split(",")) {
            if (!hop.isBlank()) {
                hops.add(hop.trim());
            }
        }
        if (!hops.isEmpty()) {
            hops.removeLast(); // the direct peer, appended by the gateway before routing
        }
        if (hops.isEmpty()) {
            return context.clientIp();
        }
        return IpLiteral.parse(hops.get(Math.max(0, hops.size() - maxTrustedIndex)));
    }
}
