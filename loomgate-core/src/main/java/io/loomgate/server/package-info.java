/**
 * The server side of a connection: the accept loop with admission control ({@link io.loomgate.server.Listener}),
 * one keep-alive loop per client connection, and the {@link io.loomgate.server.ExchangeHandler} seam. Knows nothing
 * of proxying: the mock origin and the admin page run on it unchanged.
 */
package io.loomgate.server;
