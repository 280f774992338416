/**
 * The server side of a connection: the accept loop with admission control ({@link io.loomgate.server.Listener}),
 * one {@link io.loomgate.server.ClientConnection} per accepted socket (TLS, protocol choice, drain) serving
 * HTTP/1.1 through its keep-alive loop ({@link io.loomgate.server.Http1ServerConnection}) or HTTP/2, idle
 * connections parked through their {@link io.loomgate.server.ParkState}, and the
 * {@link io.loomgate.server.ExchangeHandler} seam. Knows nothing of proxying: the mock origin and the admin page run
 * on it unchanged.
 */
package io.loomgate.server;
