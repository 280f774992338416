package io.loomgate.filter;

import java.io.IOException;
import java.util.List;

/**
 * Runs a route's filters around a terminal link (the forwarding core), enforcing the chain contract
 * (ARCHITECTURE rule 4): each filter calls {@link FilterChain#proceed} exactly once, or answers with
 * {@link FilterExchange#replyLocally} and does not proceed.
 *
 * <p>A filter that proceeds twice, proceeds after replying locally, or returns having done neither gets an
 * {@link IllegalStateException} naming its class (thrown from the offending {@code proceed} call, or after the
 * filter returns). "Replied locally" is read as {@code exchange.response() != null} when the filter did not proceed:
 * {@code replyLocally} makes the reply the exchange's response, and before the terminal link runs there is none.
 *
 * <p>Each run builds its links afresh, so one list of filters serves any number of requests at once.
 */
public final class FilterChains {
    private FilterChains() {
    }

    /**
     * Runs {@code filters} in order, then {@code terminal}; exceptions from any of them propagate unchanged.
     *
     * @param filters  the route's filters, first to run first
     * @param exchange the exchange they see
     * @param terminal the last link: forwards the request and sets the response head
     * @throws IllegalStateException naming the filter that broke the exactly-once rule
     */
    public static void run(List<GatewayFilter> filters, FilterExchange exchange, FilterChain terminal)
            throws IOException {
        new Link(filters, 0, terminal, null).proceed(exchange);
    }

    /** The chain as seen by the filter at {@code index - 1}: proceeding runs the filter at {@code index}. */
    private static final class Link implements FilterChain {
        private final List<GatewayFilter> filters;
        private final int index;
        private final FilterChain terminal;
        private final GatewayFilter caller;
        private int calls;

        Link(List<GatewayFilter> filters, int index, FilterChain terminal, GatewayFilter caller) {
            this.filters = filters;
            this.index = index;
            this.terminal = terminal;
            this.caller = caller;
        }

        @Override
        public void proceed(FilterExchange exchange) throws IOException {
            if (caller != null) {
                if (++calls > 1) {
                    throw violation("called proceed more than once");
                }
                if (exchange.response() != null) {
                    throw violation("called proceed after replying locally");
                }
            }
            if (index == filters.size()) {
                terminal.proceed(exchange);
                return;
            }
            GatewayFilter filter = filters.get(index);
            Link next = new Link(filters, index + 1, terminal, filter);
            filter.filter(exchange, next);
            if (next.calls == 0 && exchange.response() == null) {
                throw next.violation("returned without calling proceed or replying locally");
            }
        }

        private IllegalStateException violation(String what) {
            return new IllegalStateException("filter " + caller.getClass().getName() + " (" + caller + ", position "
                    + index + " of " + filters.size() + ") " + what + "; a filter must call proceed exactly once "
                    + "or reply locally");
        }
    }
}
