package io.loomgate.filter;

import io.loomgate.extension.StatusCodes;
import io.loomgate.http.ResponseHead;
import io.loomgate.http.Status;
import java.io.IOException;
import java.util.List;

/**
 * Replaces the status of the response, once the origin (or a local reply) answered: {@code SetStatus=401} or
 * {@code SetStatus=UNAUTHORIZED}. Statuses that forbid a body (1xx, 204, 304) are refused: the origin's body would
 * have to be dropped, which this filter does not do.
 *
 * @param status 200..599, not 204 or 304
 */
record SetStatusFilter(int status) implements GatewayFilter {
    static final FilterFactory FACTORY = new BuiltinFilterFactory("SetStatus", List.of("status"),
            args -> new SetStatusFilter(StatusCodes.parse("status", args.required("status"))));

    SetStatusFilter {
        if (status < 100 || status > 599 || Status.forbidsBody(status)) {
            throw new IllegalArgumentException("status: " + status
                    + " cannot be set on a forwarded response (1xx, 204 and 304 forbid a body); expected 200..599");
        }
    }

    @Override
    public void filter(FilterExchange exchange, FilterChain chain) throws IOException {
        chain.proceed(exchange);
        ResponseHead response = exchange.response();
        if (response != null) {
            exchange.setResponse(response.withStatus(status));
        }
    }
}
