package io.loomgate.filter;

import io.loomgate.http.Headers;
import io.loomgate.http.ResponseHead;
import java.io.IOException;
import java.util.List;

/**
 * Adds or sets one header field of the request (before proceeding) or of the response (after the origin, or a local
 * reply, answered). The four configuration names are four {@link Mode}s of this one filter:
 * {@code AddRequestHeader=X-Request-Red, blue} adds a field after any of the same name;
 * {@code SetRequestHeader=X-Request-Red, blue} replaces every field of that name with one; likewise
 * {@code AddResponseHeader} and {@code SetResponseHeader}. The value may use the route's variables
 * ({@code {segment}}). Host cannot be added to a request (a second Host makes it invalid; SetRequestHeader replaces it).
 * {@code AddResponseHeader} takes SCG's third argument, {@code override} (default true): false leaves a response that
 * already has a field of that name as it is ({@code AddResponseHeader=X-Response-Black, White, false}).
 */
final class HeaderFilter implements GatewayFilter {

    /** Which head, and whether the field is appended or replaces every field of its name. */
    enum Mode {
        ADD_REQUEST("AddRequestHeader", false, false),
        SET_REQUEST("SetRequestHeader", false, true),
        ADD_RESPONSE("AddResponseHeader", true, false),
        SET_RESPONSE("SetResponseHeader", true, true);

        private final String filterName;
        private final boolean response;
        private final boolean replaces;

        Mode(String filterName, boolean response, boolean replaces) {
            this.filterName = filterName;
            this.response = response;
            this.replaces = replaces;
        }

        private FilterFactory factory() {
            if (this == ADD_RESPONSE) {
                return new BuiltinFilterFactory(filterName, List.of("name", "value", "override"),
                        args -> new HeaderFilter(this, args.required("name"), args.present("value"),
                                args.bool("override", true)));
            }
            return new BuiltinFilterFactory(filterName, List.of("name", "value"),
                    args -> new HeaderFilter(this, args.required("name"), args.present("value")));
        }
    }

    static final FilterFactory ADD_REQUEST = Mode.ADD_REQUEST.factory();
    static final FilterFactory SET_REQUEST = Mode.SET_REQUEST.factory();
    static final FilterFactory ADD_RESPONSE = Mode.ADD_RESPONSE.factory();
    static final FilterFactory SET_RESPONSE = Mode.SET_RESPONSE.factory();
    /** Spring Cloud Gateway's {@code SetRequestHostHeader=example.org}: SetRequestHeader=Host, example.org. */
    static final FilterFactory SET_REQUEST_HOST = new BuiltinFilterFactory("SetRequestHostHeader", List.of("host"),
            args -> new HeaderFilter(Mode.SET_REQUEST, "Host", args.required("host")));

    private final Mode mode;
    private final String name;
    private final HeaderValue value;
    /** False: an add that leaves a field already present alone (only AddResponseHeader's {@code override}). */
    private final boolean addsBesideExisting;

    HeaderFilter(Mode mode, String name, String value) {
        this(mode, name, value, true);
    }

    HeaderFilter(Mode mode, String name, String value, boolean addsBesideExisting) {
        this.addsBesideExisting = addsBesideExisting;
        String checked = HeaderFields.name("name", name);
        this.mode = mode;
        this.name = mode == Mode.ADD_REQUEST
                ? HeaderFields.notHost("name", checked, "use SetRequestHeader to replace it") : checked;
        this.value = new HeaderValue(value);
    }

    @Override
    public void filter(FilterExchange exchange, FilterChain chain) throws IOException {
        if (!mode.response) {
            edit(exchange.request().headers(), exchange);
        }
        chain.proceed(exchange);
        ResponseHead response = exchange.response();
        if (mode.response && response != null) {
            edit(response.headers(), exchange);
        }
    }

    private void edit(Headers headers, FilterExchange exchange) {
        String v = value.valueFor(exchange);
        if (mode.replaces) {
            headers.set(name, v);
        } else if (addsBesideExisting || headers.first(name) == null) {
            headers.add(name, v);
        }
    }

    @Override
    public String toString() {
        return mode.filterName + "[" + name + ": " + value + (addsBesideExisting ? "" : ", if absent") + "]";
    }
}
