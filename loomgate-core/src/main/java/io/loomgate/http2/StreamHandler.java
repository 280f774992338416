package io.loomgate.http2;

import java.io.IOException;

/**
 * Serves one HTTP/2 stream, on the stream's own virtual thread. When it returns, the response must be complete;
 * a stream left unfinished is reset (INTERNAL_ERROR). The server adapts this to its {@code ExchangeHandler}.
 */
@FunctionalInterface
public interface StreamHandler {
    void handle(Http2Stream stream) throws IOException;
}
