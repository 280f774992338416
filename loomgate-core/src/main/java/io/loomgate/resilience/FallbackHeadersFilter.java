package io.loomgate.resilience;

import io.loomgate.extension.ExtensionArgs;
import io.loomgate.filter.BuiltinFilterFactory;
import io.loomgate.filter.FilterChain;
import io.loomgate.filter.FilterExchange;
import io.loomgate.filter.FilterFactory;
import io.loomgate.filter.GatewayFilter;
import io.loomgate.http.Headers;
import java.io.IOException;
import java.util.List;

/**
 * Spring Cloud Gateway's {@code FallbackHeaders}, on a fallback route: when a {@code CircuitBreaker} sent the request
 * here, the failure's type and message, and its root cause's, go to the fallback origin as request headers
 * ({@code Execution-Exception-Type}, {@code Execution-Exception-Message}, {@code Root-Cause-Exception-Type},
 * {@code Root-Cause-Exception-Message}, each name an argument). A request that came by itself passes untouched.
 * Types are Java class names as in SCG, Loomgate's own where the failure is Loomgate's (an upstream failure is the
 * proxy's {@code ProxyFailure} with the socket's exception as root cause; open is Resilience4j's
 * {@code CallNotPermittedException}).
 */
public record FallbackHeadersFilter(String typeHeader, String messageHeader, String rootTypeHeader,
                                    String rootMessageHeader) implements GatewayFilter {
    public static final FilterFactory FACTORY = new BuiltinFilterFactory("FallbackHeaders",
            List.of("executionExceptionTypeHeaderName", "executionExceptionMessageHeaderName",
                    "rootCauseExceptionTypeHeaderName", "rootCauseExceptionMessageHeaderName"),
            a -> new FallbackHeadersFilter(
                    a.headerName("executionExceptionTypeHeaderName", "Execution-Exception-Type"),
                    a.headerName("executionExceptionMessageHeaderName", "Execution-Exception-Message"),
                    a.headerName("rootCauseExceptionTypeHeaderName", "Root-Cause-Exception-Type"),
                    a.headerName("rootCauseExceptionMessageHeaderName", "Root-Cause-Exception-Message")));

    @Override
    public void filter(FilterExchange exchange, FilterChain chain) throws IOException {
        if (exchange.attributes().get(CircuitBreakerPolicy.EXECUTION_EXCEPTION) instanceof Throwable failure) {
            Headers h = exchange.request().headers();
            h.set(typeHeader, failure.getClass().getName());
            h.set(messageHeader, fieldValue(failure.getMessage()));
            Throwable root = failure;
            while (root.getCause() != null && root.getCause() != root) {
                root = root.getCause();
            }
            h.set(rootTypeHeader, root.getClass().getName());
            h.set(rootMessageHeader, fieldValue(root.getMessage()));
        }
        chain.proceed(exchange);
    }

    /** A message as a field value: control characters (CR and LF above all) become spaces, beyond Latin-1 '?'. */
    static String fieldValue(String message) {
        if (message == null) {
            return "";
        }
        StringBuilder b = new StringBuilder(message.length());
        for (int i = 0; i < message.length(); i++) {
            char c = message.charAt(i);
            b.append(c < 0x20 || c == 0x7f ? ' ' : c > 0xff ? '?' : c);
        }
        return b.toString().strip();
    }

    @Override
    public String toString() {
        return "FallbackHeaders[" + typeHeader + ", " + messageHeader + ", " + rootTypeHeader + ", "
                + rootMessageHeader + "]";
    }
}
