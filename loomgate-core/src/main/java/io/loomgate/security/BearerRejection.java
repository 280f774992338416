package io.loomgate.security;

/**
 * Why a bearer token was not accepted, as RFC 6750 §3.1 names it: {@code invalid_request} (400),
 * {@code invalid_token} (401), {@code insufficient_scope} (403), or no error code at all when the request carried no
 * bearer token (401). {@code status} 503 means the gateway could not get its keys. No stack trace: this is a
 * decision, thrown per bad request.
 */
final class BearerRejection extends Exception {
    final int status;
    final String error;
    final String scope;

    private BearerRejection(int status, String error, String description, String scope) {
        super(description, null, false, false);
        this.status = status;
        this.error = error;
        this.scope = scope;
    }

    static BearerRejection missing() {
        return new BearerRejection(401, null, "a bearer token is required", null);
    }

    static BearerRejection badRequest(String description) {
        return new BearerRejection(400, "invalid_request", description, null);
    }

    static BearerRejection invalid(String description) {
        return new BearerRejection(401, "invalid_token", description, null);
    }

    static BearerRejection insufficientScope(String requiredScopes) {
        return new BearerRejection(403, "insufficient_scope", "the token lacks a required scope", requiredScopes);
    }

    static BearerRejection keysUnavailable(String description) {
        return new BearerRejection(503, null, description, null);
    }

    /**
     * The {@code WWW-Authenticate} value. A description may quote the token (its {@code alg}), so it is kept to
     * RFC 6750's error_description characters (visible ASCII but {@code "} and {@code \}).
     */
    String challenge() {
        if (error == null) {
            return "Bearer";
        }
        StringBuilder b = new StringBuilder("Bearer error=\"").append(error).append('"');
        b.append(", error_description=\"");
        getMessage().chars().filter(c -> c >= 0x20 && c < 0x7f && c != '"' && c != '\\')
                .forEach(c -> b.append((char) c));
        b.append('"');
        if (scope != null) {
            b.append(", scope=\"").append(scope).append('"');
        }
        return b.toString();
    }
}
