package io.loomgate.http;

/**
 * Size limits applied while parsing a message head or a chunked body. A message over a limit is refused with the
 * status named below, never truncated.
 *
 * <table>
 * <caption>Limits</caption>
 * <tr><th>limit</th><th>default</th><th>when exceeded</th></tr>
 * <tr><td>maxRequestLineBytes</td><td>8 KiB</td><td>414 URI Too Long (RFC 9112 §3, RFC 9110 §15.5.15)</td></tr>
 * <tr><td>maxHeaderBytes</td><td>64 KiB (all fields)</td><td>431 (RFC 6585 §5)</td></tr>
 * <tr><td>maxHeaderCount</td><td>100 fields</td><td>431 (RFC 6585 §5)</td></tr>
 * <tr><td>maxChunkLineBytes</td><td>4 KiB (size + extensions)</td><td>400 (RFC 9112 §7.1.1)</td></tr>
 * <tr><td>maxTrailerBytes</td><td>16 KiB</td><td>400 (RFC 9112 §7.1.2)</td></tr>
 * </table>
 * The same limits bound response heads from origins; an origin over them gets the client a 502.
 */
public record HttpLimits(int maxRequestLineBytes, int maxHeaderBytes, int maxHeaderCount, int maxChunkLineBytes,
                         int maxTrailerBytes) {

    public static final HttpLimits DEFAULTS = new HttpLimits(8 * 1024, 64 * 1024, 100, 4 * 1024, 16 * 1024);

    public HttpLimits {
        if (maxRequestLineBytes < 16 || maxHeaderBytes < 64 || maxHeaderCount < 1 || maxChunkLineBytes < 8
                || maxTrailerBytes < 0) {
            throw new IllegalArgumentException("HTTP limits too small: " + this);
        }
    }
}
