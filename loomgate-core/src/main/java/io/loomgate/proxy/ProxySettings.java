package io.loomgate.proxy;

import io.loomgate.http.Cidr;
import io.loomgate.http.FieldNamePatterns;
import io.loomgate.http.HttpLimits;
import io.loomgate.server.ListenerSettings;
import java.time.Duration;
import java.util.List;

/**
 * Gateway-wide proxying behaviour.
 *
 * @param trustedProxies  peers whose forwarding headers are appended to (all others' are replaced)
 * @param bodyReadTimeout longest wait for any single read of a body or a tunnel from the origin
 * @param limits          limits on chunk lines and trailers of bodies from origins
 * @param stripRequestHeaders fields removed from a request whose peer is not a trusted proxy, before routing
 */
public record ProxySettings(List<Cidr> trustedProxies, Duration bodyReadTimeout, HttpLimits limits,
                            FieldNamePatterns stripRequestHeaders) {
    public ProxySettings {
        trustedProxies = List.copyOf(trustedProxies);
    }

    /** With the default {@link FieldNamePatterns#STRIPPED_BY_DEFAULT}. */
    public ProxySettings(List<Cidr> trustedProxies, Duration bodyReadTimeout, HttpLimits limits) {
        this(trustedProxies, bodyReadTimeout, limits, FieldNamePatterns.STRIPPED_BY_DEFAULT);
    }

    /** No trusted proxies; origin reads bounded like the client listener's reads. */
    public static final ProxySettings DEFAULTS = new ProxySettings(List.of(), ListenerSettings.DEFAULTS.readTimeout(),
            HttpLimits.DEFAULTS);
}
