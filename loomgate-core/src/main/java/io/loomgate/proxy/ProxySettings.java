package io.loomgate.proxy;

import io.loomgate.http.Cidr;
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
 */
public record ProxySettings(List<Cidr> trustedProxies, Duration bodyReadTimeout, HttpLimits limits) {
    public ProxySettings {
        trustedProxies = List.copyOf(trustedProxies);
    }

    /** No trusted proxies; origin reads bounded like the client listener's reads. */
    public static final ProxySettings DEFAULTS = new ProxySettings(List.of(), ListenerSettings.DEFAULTS.readTimeout(),
            HttpLimits.DEFAULTS);
}
