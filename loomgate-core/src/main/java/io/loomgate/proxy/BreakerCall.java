package io.loomgate.proxy;

import io.loomgate.filter.FilterChain;
import io.loomgate.filter.FilterChains;
import io.loomgate.http1.BodyFraming;
import io.loomgate.resilience.CircuitBreakerPolicy;
import java.io.IOException;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** One exchange's route filters and upstream attempts, as the route's circuit breaker runs them. */
record BreakerCall(Exchange x, FilterChain forwarder) implements CircuitBreakerPolicy.Call {
    private static final Pattern VARIABLE = Pattern.compile("\\{\\*?([A-Za-z0-9_]+)}");

    @Override
    public int run() throws IOException {
        FilterChains.run(x.route.route().filters(), x, forwarder);
        return x.localReply != null ? LOCAL_REPLY : x.upstream.head.status();
    }

    @Override
    public boolean timedOut(IOException failure) {
        return failure instanceof ProxyFailure f && f.kind() == ProxyFailure.Kind.UPSTREAM_TIMEOUT;
    }

    @Override
    public boolean stoppedByOpenBreaker(IOException failure) {
        return failure instanceof ProxyFailure f && f.kind() == ProxyFailure.Kind.CIRCUIT_OPEN;
    }

    /**
     * The failure an exchange ends with when its route's breaker refuses it: at the call's start ({@code when}
     * empty), or before a retry of its upstream try.
     */
    static ProxyFailure refusal(Exchange x, CircuitBreakerPolicy.Refused refused, String when) {
        return ProxyFailure.circuitOpen("route '" + x.route.route().id() + "': circuit breaker '" + refused.breaker()
                + "' is open" + when, refused.retryAfterSeconds());
    }

    /**
     * No body (none declared, or {@code Content-Length: 0}: nothing the attempt could use up), or one CacheRequestBody
     * read whole: a streamed body went to the attempt that failed (SCG caches it).
     */
    @Override
    public boolean resendable() {
        return x.bodyCached() || x.requestFraming() instanceof BodyFraming.None
                || x.requestFraming() instanceof BodyFraming.Fixed f && f.length() == 0;
    }

    /** A fallback path with the matched route's variables filled in ({@code forward:/fallback/{segments}}), as SCG. */
    static String expand(String path, Map<String, String> variables) {
        Matcher m = VARIABLE.matcher(path);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            String value = variables.get(m.group(1));
            m.appendReplacement(out, Matcher.quoteReplacement(value == null ? m.group() : value));
        }
        m.appendTail(out);
        return out.toString().replace("//", "/");
    }
}
