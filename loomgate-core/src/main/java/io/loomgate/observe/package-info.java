/**
 * What the gateway lets an operator see: Micrometer/Prometheus metrics built from the core's listener events
 * ({@link io.loomgate.observe.GatewayMetrics}), the access log ({@link io.loomgate.observe.AccessLog}), pinned
 * virtual threads caught by a JFR stream ({@link io.loomgate.observe.PinnedEventMonitor}) and the admin listener's
 * endpoints and dashboard ({@link io.loomgate.observe.AdminHandler}).
 *
 * <p>The core never imports this package: it emits events through {@code proxy.ExchangeListener},
 * {@code upstream.PoolListener} and {@code server.ConnectionListener}, and the CLI (the composition root) wires the
 * implementations here to them. Every listener method here is cheap and non-blocking: meters are cached per route,
 * upstream and endpoint, and the access log only enqueues.
 */
package io.loomgate.observe;
