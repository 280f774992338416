package io.loomgate.route;

import io.loomgate.http.Cidr;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;

/**
 * Holds when the client's address is in one of the ranges: {@code RemoteAddr=192.168.1.0/24,10.0.0.7} (Spring Cloud
 * Gateway's name). The address is the one the proxy resolved honouring {@code server.trusted-proxies}: behind a
 * trusted proxy it is the X-Forwarded-For hop before it, from anyone else the socket peer, so a client cannot claim
 * an address by writing a header. An unknown address (a hop that is not an IP literal) matches nothing.
 */
record RemoteAddrPredicate(List<Cidr> sources) implements RoutePredicate {
    static final PredicateFactory FACTORY = new BuiltinPredicateFactory("RemoteAddr", List.of("sources"), true,
            args -> new RemoteAddrPredicate(ranges(args.list("sources"))));

    RemoteAddrPredicate {
        sources = List.copyOf(sources);
    }

    /** The {@code sources} argument as ranges; shared with {@link XForwardedRemoteAddrPredicate}. */
    static List<Cidr> ranges(List<String> written) {
        List<Cidr> out = new ArrayList<>();
        for (String s : written) {
            try {
                out.add(Cidr.parse(s));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("sources: " + e.getMessage());
            }
        }
        return out;
    }

    @Override
    public boolean test(PredicateContext context) {
        return inAny(sources, context.clientIp());
    }

    /** Whether the address (null: unknown, matches nothing) is in one of the ranges. */
    static boolean inAny(List<Cidr> ranges, InetAddress address) {
        if (address == null) {
            return false;
        }
        for (Cidr c : ranges) {
            if (c.contains(address)) {
                return true;
            }
        }
        return false;
    }
}
