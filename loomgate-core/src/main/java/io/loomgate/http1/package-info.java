/**
 * The HTTP/1.1 codec, both sides (RFC 9112): head parsing and writing, body framing, and body streams that stop
 * exactly at the end of their message. Works on InputStream/OutputStream and {@link io.loomgate.http.HttpLimits}
 * only: no sockets, no configuration.
 */
package io.loomgate.http1;
