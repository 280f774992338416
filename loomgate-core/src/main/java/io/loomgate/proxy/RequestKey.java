package io.loomgate.proxy;

import io.loomgate.http.RequestHead;
import io.loomgate.upstream.Upstream;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The key a consistent-hash route balances on, read from the request as the route names it: {@code header:NAME},
 * {@code cookie:NAME} or {@code client-ip}. A request without the key gets a random hash, so clients that carry no
 * key spread out instead of all landing on one endpoint.
 */
final class RequestKey {
    private RequestKey() {
    }

    /** The request's key hashed, or a random value when the route does not hash or the request has no key. */
    static long hash(String keySpec, RequestHead request, String clientAddress) {
        if (keySpec == null) {
            return 0;
        }
        String key = value(keySpec, request, clientAddress);
        return key == null ? ThreadLocalRandom.current().nextLong() : Upstream.hash(key);
    }

    static String value(String keySpec, RequestHead request, String clientAddress) {
        if (keySpec.equals("client-ip")) {
            return clientAddress;
        }
        if (keySpec.startsWith("header:")) {
            return request.headers().first(keySpec.substring("header:".length()));
        }
        String name = keySpec.substring("cookie:".length());
        for (String cookieField : request.headers().all("Cookie")) {
            for (String pair : cookieField.split(";")) {
                int eq = pair.indexOf('=');
                if (eq > 0 && pair.substring(0, eq).trim().equals(name)) {
                    return pair.substring(eq + 1).trim();
                }
            }
        }
        return null;
    }
}
