package io.loomgate.observe;

import java.util.List;

/**
 * Who may use the admin listener (see {@code AdminGuard}): the token from {@code admin.auth-token}, the bind address
 * and {@code admin.allowed-hosts}.
 *
 * @param authToken    the token every request but the probes must carry, or null for none
 * @param bindAddress  the admin listener's bind address
 * @param allowedHosts further Host names the listener answers
 */
public record AdminAccess(String authToken, String bindAddress, List<String> allowedHosts) {
    /** No token; only IP-literal, localhost and 127.0.0.1 Hosts. */
    public static final AdminAccess LOCAL = new AdminAccess(null, "127.0.0.1", List.of());

    public AdminAccess {
        allowedHosts = List.copyOf(allowedHosts);
    }

    @Override
    public String toString() {
        return "AdminAccess[authToken=" + (authToken == null ? "none" : "(set)") + ", bindAddress=" + bindAddress
                + ", allowedHosts=" + allowedHosts + "]";
    }
}
