package io.loomgate.tls;

/**
 * A certificate for the handshakes whose SNI name matches {@code serverName} ({@code *.example.com} allowed); null
 * for the default certificate, the one clients without SNI or with an unknown name get.
 */
public record NamedKeySource(String serverName, KeySource source) {
}
