/**
 * Gateway filters: a blocking chain whose last link is the forwarding core. Depends only on {@code http}; the proxy's
 * exchange implements {@link io.loomgate.filter.FilterExchange}, so this package never sees the proxy.
 */
package io.loomgate.filter;
