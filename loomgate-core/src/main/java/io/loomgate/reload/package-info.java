/**
 * What a reloading gateway keeps from one build of its routes to the next: {@link io.loomgate.reload.KeptAcrossReloads},
 * the one shape of the kept breakers, retry budgets and local rate-limit buckets. Internal (not in the API table of
 * docs/extending.md): keeping is right only at the gateway's build and swap points. JDK only.
 */
package io.loomgate.reload;
