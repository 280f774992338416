package io.loomgate.tls;

import java.util.List;

/** The protocol versions a gateway may enable: TLS 1.3 and 1.2. TLS 1.1 and older are broken (RFC 8996). */
final class TlsProtocols {
    private static final List<String> ALLOWED = List.of("TLSv1.3", "TLSv1.2");

    private TlsProtocols() {
    }

    static void check(List<String> protocols) {
        if (protocols.isEmpty()) {
            throw new IllegalArgumentException("enabled-protocols must name at least one of " + ALLOWED);
        }
        for (String p : protocols) {
            if (!ALLOWED.contains(p)) {
                throw new IllegalArgumentException("protocol '" + p + "' is not allowed; expected "
                        + String.join(" and/or ", ALLOWED) + " (TLS 1.1 and older are deprecated, RFC 8996)");
            }
        }
    }
}
