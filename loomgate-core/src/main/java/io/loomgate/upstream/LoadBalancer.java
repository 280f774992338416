package io.loomgate.upstream;

import java.util.List;

/** Answers "which endpoint now": picks one of an upstream's pools for the next request. Thread-safe. */
interface LoadBalancer {

    /** One of {@code pools}, which is never empty and never changes for a given balancer. */
    UpstreamPool pick(List<UpstreamPool> pools);
}
