package io.loomgate.tls;

import java.security.cert.CertPathBuilderException;
import java.security.cert.CertPathValidatorException;
import java.security.cert.CertificateExpiredException;
import java.security.cert.CertificateNotYetValidException;
import javax.net.ssl.SSLException;

/**
 * Names why a handshake with an origin failed, in the words an operator searches for: the certificate expired,
 * its CA is unknown, its host name does not match, or what the peer's alert said.
 */
public final class TlsFailures {
    private TlsFailures() {
    }

    /** A short cause, also the key of "log once per cause": expired, not yet valid, unknown CA, ... */
    public static String cause(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof CertificateExpiredException) {
                return "certificate expired";
            }
            if (t instanceof CertificateNotYetValidException) {
                return "certificate not yet valid";
            }
            if (t instanceof CertPathValidatorException v
                    && v.getReason() == CertPathValidatorException.BasicReason.EXPIRED) {
                return "certificate expired";
            }
        }
        for (Throwable t = failure; t != null; t = t.getCause()) {
            String m = String.valueOf(t.getMessage());
            if (m.contains("No subject alternative") || m.contains("No name matching")) {
                return "host name mismatch";
            }
            if (t instanceof CertPathBuilderException || m.contains("unable to find valid certification path")) {
                return "unknown CA";
            }
        }
        String m = failure.getMessage() == null ? failure.getClass().getSimpleName() : failure.getMessage();
        return failure instanceof SSLException ? "handshake failed: " + m : m;
    }

    /** The message for the log and the 502: {@code certificate for host 'x' expired}, and so on. */
    public static String describe(String host, Throwable failure) {
        return switch (cause(failure)) {
            case "certificate expired" -> "certificate for host '" + host + "' expired";
            case "certificate not yet valid" -> "certificate for host '" + host + "' is not yet valid";
            case "unknown CA" -> "certificate for host '" + host + "' is signed by an unknown CA";
            case "host name mismatch" -> "host name mismatch: the certificate is not for '" + host + "'";
            default -> "TLS handshake with '" + host + "' failed: " + cause(failure);
        };
    }

    static boolean isUnknownIssuer(Throwable e) {
        return cause(e).equals("unknown CA");
    }
}
