package io.loomgate.config;

import java.util.Map;

/**
 * Why a Spring Cloud Gateway predicate or filter that Loomgate does not have is refused, and the Loomgate way to do
 * the same where there is one, so a pasted SCG file gets a reason rather than only "unknown filter". The list and
 * its reasons are docs/scg-compatibility.md's.
 */
final class ScgRefusals {
    private static final Map<String, String> PREDICATES = Map.of(
            "ReadBody", "it runs a Java predicate on the body, written in Spring code; register a PredicateFactory",
            "CloudFoundryRouteService", "Cloud Foundry route services are not supported",
            "Version", "it needs Spring's API versioning (spring.webflux.apiversion); match a header or the path "
                    + "with Header or Path instead");
    private static final Map<String, String> FILTERS = Map.ofEntries(
            Map.entry("TokenRelay", "it needs Spring Security's OAuth2 client and a session; check tokens at the "
                    + "gateway with JwtAuth and let the client send its own"),
            Map.entry("SaveSession", "it needs Spring Session; Loomgate keeps no sessions"),
            Map.entry("ModifyRequestBody", "it runs Java lambdas written in Spring code; register a FilterFactory"),
            Map.entry("ModifyResponseBody", "it runs Java lambdas written in Spring code; register a FilterFactory"),
            Map.entry("JsonToGrpc", "it is not supported; call gRPC services with a gRPC client through the gateway"),
            Map.entry("RequestHeaderToRequestUri", "it lets a header choose the origin, which lets a client send the "
                    + "gateway anywhere; give each origin a route"),
            Map.entry("SetRequestUri", "it lets the request choose the origin; give each origin a route"),
            Map.entry("RemoveJsonAttributesResponseBody", "it rewrites JSON bodies; register a FilterFactory"),
            Map.entry("Hystrix", "Hystrix is gone from SCG too; use CircuitBreaker"));

    private ScgRefusals() {
    }

    /** The reason, or null when the name is not an SCG predicate or filter Loomgate refuses. */
    static String reason(String kind, String name) {
        return (kind.equals("predicate") ? PREDICATES : FILTERS).get(name);
    }
}
