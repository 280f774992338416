package io.loomgate.http;

/**
 * A request line and its header fields.
 *
 * <p>{@code target} is kept byte-exact as the client sent it (origin-form {@code /a%2Fb?x=1}, absolute-form,
 * authority-form or {@code *}): the gateway never decodes and re-encodes a path, so what the origin sees is what
 * the client wrote, minus the changes filters ask for. The headers object is mutable and owned by one exchange.
 *
 * @param method  the method token, case-sensitive (RFC 9110 §9.1)
 * @param target  the request-target, raw
 * @param version {@code HTTP/1.1} or {@code HTTP/1.0}
 * @param headers the fields, in order
 */
public record RequestHead(String method, String target, String version, Headers headers) {
    /**
     * Fields a parsed request's list has room for beyond its own, so that it does not grow on the way to the origin:
     * the proxy adds up to seven (X-Forwarded-For, -Proto, -Host, -Port, Forwarded, Via, CDN-Loop; its traceparent is
     * written into the head from the trace ids, not added). Both parsers size their list with it (HTTP/1.1's
     * RequestHeadParser, HTTP/2's RequestFields); a growth doubles both arrays (~170 B a request at W8, session 60,
     * when CDN-Loop came and the room was still six).
     */
    public static final int PROXY_ROOM = 7;

    /** The path part of an origin-form target (before {@code ?}); the whole target for other forms. */
    public String path() {
        int q = target.indexOf('?');
        return q < 0 ? target : target.substring(0, q);
    }

    /** The raw query (after {@code ?}, without it), or null when there is none. */
    public String query() {
        int q = target.indexOf('?');
        return q < 0 ? null : target.substring(q + 1);
    }

    public boolean isHttp11() {
        return HttpVersion.HTTP_1_1.equals(version);
    }

    public RequestHead withTarget(String newTarget) {
        return new RequestHead(method, newTarget, version, headers);
    }

    /** A new target made of a new path and this request's query. */
    public RequestHead withPath(String newPath) {
        String q = query();
        return withTarget(q == null ? newPath : newPath + "?" + q);
    }

    public RequestHead withMethod(String newMethod) {
        return new RequestHead(newMethod, target, version, headers);
    }
}
