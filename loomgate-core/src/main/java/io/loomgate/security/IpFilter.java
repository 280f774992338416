package io.loomgate.security;

import io.loomgate.extension.ExtensionArgs;
import io.loomgate.filter.BuiltinFilterFactory;
import io.loomgate.filter.FilterChain;
import io.loomgate.filter.FilterExchange;
import io.loomgate.filter.FilterFactory;
import io.loomgate.filter.GatewayFilter;
import io.loomgate.http.Cidr;
import java.io.IOException;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;

/**
 * Allows or refuses a request by the client's address: in a {@code deny} range → 403; an {@code allow} list that
 * does not hold it → 403; otherwise through. The address honours {@code server.trusted-proxies} (see
 * {@link FilterExchange#clientIp()}); an address that cannot be known (a forwarded hop that is not an IP literal) is
 * refused, because an IP rule that cannot be checked must not pass. Immutable.
 */
final class IpFilter implements GatewayFilter {
    static final FilterFactory FACTORY = new BuiltinFilterFactory("IpFilter", List.of("allow", "deny"),
            IpFilter::create);

    private final List<Cidr> allow;
    private final List<Cidr> deny;

    IpFilter(List<Cidr> allow, List<Cidr> deny) {
        this.allow = List.copyOf(allow);
        this.deny = List.copyOf(deny);
    }

    private static GatewayFilter create(ExtensionArgs a) {
        List<Cidr> allow = ranges("allow", a.list("allow", List.of()));
        List<Cidr> deny = ranges("deny", a.list("deny", List.of()));
        if (allow.isEmpty() && deny.isEmpty()) {
            throw new IllegalArgumentException("needs 'allow' or 'deny' (lists of addresses or CIDR ranges)");
        }
        return new IpFilter(allow, deny);
    }

    private static List<Cidr> ranges(String name, List<String> written) {
        List<Cidr> out = new ArrayList<>();
        for (String s : written) {
            try {
                out.add(Cidr.parse(s));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(name + ": " + e.getMessage());
            }
        }
        return out;
    }

    @Override
    public void filter(FilterExchange exchange, FilterChain chain) throws IOException {
        InetAddress client = exchange.clientIp();
        String refusal = client == null ? "the client address cannot be determined"
                : inAny(deny, client) ? "the client address is denied"
                : !allow.isEmpty() && !inAny(allow, client) ? "the client address is not allowed" : null;
        if (refusal != null) {
            SecurityReplies.reply(exchange, 403, refusal);
            return;
        }
        chain.proceed(exchange);
    }

    private static boolean inAny(List<Cidr> ranges, InetAddress a) {
        for (Cidr c : ranges) {
            if (c.contains(a)) {
                return true;
            }
        }
        return false;
    }
}
