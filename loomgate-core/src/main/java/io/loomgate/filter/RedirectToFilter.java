package io.loomgate.filter;

import io.loomgate.extension.StatusCodes;
import io.loomgate.http.ResponseHead;
import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.List;
import java.util.Set;

/**
 * Answers with a redirect and never calls the origin: {@code RedirectTo=302, https://example.org}. With
 * {@code includeRequestParams} true, the request's raw query is appended to the URL. The reply has a
 * {@code Location} field and an empty body; the proxy frames it.
 *
 * @param status               300, 301, 302, 303, 307 or 308
 * @param url                  an absolute URL or a path, as sent in Location
 * @param includeRequestParams append the request's query to the URL
 */
record RedirectToFilter(int status, String url, boolean includeRequestParams) implements GatewayFilter {
    static final FilterFactory FACTORY = new BuiltinFilterFactory("RedirectTo",
            List.of("status", "url", "includeRequestParams"),
            args -> new RedirectToFilter(StatusCodes.parse("status", args.required("status")), args.required("url"),
                    args.bool("includeRequestParams", false)));

    private static final Set<Integer> REDIRECTS = Set.of(300, 301, 302, 303, 307, 308);

    RedirectToFilter {
        if (!REDIRECTS.contains(status)) {
            throw new IllegalArgumentException("status: expected a redirect status (300, 301, 302, 303, 307, 308), got "
                    + status);
        }
        HeaderFields.value("url", url);
        PathText.requestLineSafe("url", url);
        try {
            new URI(url);
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException("url: '" + url + "' is not a valid URI: " + e.getReason());
        }
    }

    @Override
    public void filter(FilterExchange exchange, FilterChain chain) {
        String location = url;
        String query = exchange.request().query();
        if (includeRequestParams && query != null && !query.isEmpty()) {
            location = url + (url.indexOf('?') >= 0 ? "&" : "?") + query;
        }
        ResponseHead head = ResponseHead.of(status);
        head.headers().add("Location", location);
        exchange.replyLocally(head, new byte[0]);
    }
}
