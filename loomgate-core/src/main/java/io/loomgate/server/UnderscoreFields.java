package io.loomgate.server;

import io.loomgate.http.Headers;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Drops request fields whose names contain '_'. CGI, WSGI and PHP map both {@code X-Forwarded-For} and
 * {@code X_Forwarded_For} to {@code HTTP_X_FORWARDED_FOR}, so a client could shadow a field the gateway sets or
 * checks; no standard field has an underscore. nginx drops them by default too ({@code underscores_in_headers off});
 * {@code server.underscores-in-headers: true} keeps them.
 */
final class UnderscoreFields {
    private static final Logger log = LoggerFactory.getLogger(UnderscoreFields.class);

    private UnderscoreFields() {
    }

    static void drop(Headers h, long connectionId) {
        for (int i = h.size() - 1; i >= 0; i--) {
            if (h.name(i).indexOf('_') >= 0) {
                log.debug("connection {}: dropped request field '{}' (underscore in its name)", connectionId,
                        h.name(i));
                h.removeAt(i);
            }
        }
    }
}
