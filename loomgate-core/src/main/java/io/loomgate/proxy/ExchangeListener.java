package io.loomgate.proxy;

import java.util.List;

/**
 * Events of one proxied exchange, in this order: exchangeStart, routeMatched, then per upstream attempt attemptStart,
 * upstreamAcquired, responseHeadReceived (and attemptEnd for an attempt whose answer is not relayed: it failed, or
 * is retried), then exactly one of exchangeEnd or exchangeFailed (a failed exchange may skip the middle events; a
 * request refused by admission control gets exchangeFailed with {@link ExchangeView#failure()} set). The attempt
 * whose answer is relayed ends with the exchange.
 *
 * <p>Implementations must be fast, must not block and must not throw: they run on the request's own thread, inside
 * the request's latency. The view is live: read what you need during the call, do not keep it.
 */
public interface ExchangeListener {
    ExchangeListener NOOP = new ExchangeListener() {
    };

    default void exchangeStart(ExchangeView exchange) {
    }

    default void routeMatched(ExchangeView exchange) {
    }

    /**
     * A new trace starts at this gateway (no valid traceparent came in) with this trace id: whether it is sampled,
     * which the traceparent sent upstream says. A tracer answers its sampler's decision; true without one, so the
     * origins decide for themselves. Called before routeMatched, on a request that got past the request screen.
     */
    default boolean sampleNewTrace(String traceId) {
        return true;
    }

    /**
     * Whether this listener overrides {@link #sampleNewTrace}: only then is a new trace's id written out as hex for
     * it (a string per request that nothing else may read). Asked once, when the proxy is built.
     */
    default boolean decidesSampling() {
        try {
            return getClass().getMethod("sampleNewTrace", String.class).getDeclaringClass() != ExchangeListener.class;
        } catch (NoSuchMethodException e) {
            throw new AssertionError(e);
        }
    }

    /**
     * An upstream attempt starts (number {@link ExchangeView#attemptNumber()}, 0 for the first), before it connects;
     * the traceparent it sends carries {@link ExchangeView#attemptSpanId()}.
     */
    default void attemptStart(ExchangeView exchange) {
    }

    default void upstreamAcquired(ExchangeView exchange, boolean reused) {
    }

    default void responseHeadReceived(ExchangeView exchange) {
    }

    /**
     * An attempt whose answer is not relayed ended: it failed ({@code failure}), or its answer
     * ({@link ExchangeView#attemptStatus()}) is dropped for a retry ({@code failure} null).
     */
    default void attemptEnd(ExchangeView exchange, ProxyFailure failure) {
    }

    default void exchangeEnd(ExchangeView exchange) {
    }

    default void exchangeFailed(ExchangeView exchange) {
    }

    /**
     * A retry was decided on, or refused: {@code outcome} is {@code retried}, {@code exhausted} (no retries left),
     * {@code budget_exhausted} (the route's retry budget is spent) or {@code body_too_large} (the request body outgrew
     * max-replay-size). Between responseHeadReceived or a failed attempt and the next upstreamAcquired.
     */
    default void retry(ExchangeView exchange, String outcome) {
    }

    /**
     * A listener that takes the end of an exchange the same way whether it failed or not (the access log writes its
     * line, the tracer ends the exchange's spans): both end events come to {@link #exchangeDone}.
     */
    interface Ending extends ExchangeListener {
        /** The exchange ended, answered or failed ({@link ExchangeView#failure()} says which). */
        void exchangeDone(ExchangeView exchange);

        @Override
        default void exchangeEnd(ExchangeView exchange) {
            exchangeDone(exchange);
        }

        @Override
        default void exchangeFailed(ExchangeView exchange) {
            exchangeDone(exchange);
        }
    }

    /** Several listeners as one; each is called in order. */
    static ExchangeListener composite(List<ExchangeListener> listeners) {
        if (listeners.isEmpty()) {
            return NOOP;
        }
        if (listeners.size() == 1) {
            return listeners.get(0);
        }
        List<ExchangeListener> all = List.copyOf(listeners);
        return new ExchangeListener() {
            private final boolean decides = all.stream().anyMatch(ExchangeListener::decidesSampling);

            @Override
            public void exchangeStart(ExchangeView x) {
                all.forEach(l -> l.exchangeStart(x));
            }

            @Override
            public void routeMatched(ExchangeView x) {
                all.forEach(l -> l.routeMatched(x));
            }

            @Override
            public boolean decidesSampling() {
                return decides;
            }

            @Override
            public boolean sampleNewTrace(String traceId) {
                for (ExchangeListener l : all) {
                    if (!l.sampleNewTrace(traceId)) {
                        return false;
                    }
                }
                return true;
            }

            @Override
            public void attemptStart(ExchangeView x) {
                all.forEach(l -> l.attemptStart(x));
            }

            @Override
            public void attemptEnd(ExchangeView x, ProxyFailure failure) {
                all.forEach(l -> l.attemptEnd(x, failure));
            }

            @Override
            public void upstreamAcquired(ExchangeView x, boolean reused) {
                all.forEach(l -> l.upstreamAcquired(x, reused));
            }

            @Override
            public void responseHeadReceived(ExchangeView x) {
                all.forEach(l -> l.responseHeadReceived(x));
            }

            @Override
            public void exchangeEnd(ExchangeView x) {
                all.forEach(l -> l.exchangeEnd(x));
            }

            @Override
            public void exchangeFailed(ExchangeView x) {
                all.forEach(l -> l.exchangeFailed(x));
            }

            @Override
            public void retry(ExchangeView x, String outcome) {
                all.forEach(l -> l.retry(x, outcome));
            }
        };
    }
}
