package io.loomgate.filter;

import io.loomgate.http.Headers;
import io.loomgate.http.ResponseHead;
import java.io.IOException;

/**
 * A filter whose whole work is on the response head's fields, once the rest of the chain has answered: the filter
 * method every such filter would write, proceed then edit, written once. A chain that ended without a response
 * head (the client went away, the exchange failed) leaves nothing to edit.
 */
public interface ResponseFieldsFilter extends GatewayFilter {

    /** Edits the fields of the response head the rest of the chain produced. */
    void editResponse(Headers fields);

    @Override
    default void filter(FilterExchange exchange, FilterChain chain) throws IOException {
        chain.proceed(exchange);
        ResponseHead response = exchange.response();
        if (response != null) {
            editResponse(response.headers());
        }
    }
}
