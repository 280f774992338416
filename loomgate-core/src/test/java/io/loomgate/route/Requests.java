package io.loomgate.route;

import io.loomgate.http.Headers;
import io.loomgate.http.RequestHead;
import java.util.LinkedHashMap;
import java.util.Map;

/** Request heads and predicate contexts for predicate tests. */
final class Requests {
    private Requests() {
    }

    static RequestHead get(String target, String... headerPairs) {
        return request("GET", target, headerPairs);
    }

    static RequestHead request(String method, String target, String... headerPairs) {
        Headers headers = new Headers();
        for (int i = 0; i < headerPairs.length; i += 2) {
            headers.add(headerPairs[i], headerPairs[i + 1]);
        }
        return new RequestHead(method, target, "HTTP/1.1", headers);
    }

    /** A context for one route, with no weight groups. */
    static Context context(RequestHead request) {
        return new Context(request);
    }

    static final class Context implements PredicateContext {
        private final RequestHead request;
        private final Map<String, String> variables = new LinkedHashMap<>();

        Context(RequestHead request) {
            this.request = request;
        }

        @Override
        public RequestHead request() {
            return request;
        }

        @Override
        public Map<String, String> variables() {
            return variables;
        }

        @Override
        public String routeId() {
            return "r";
        }

        @Override
        public String weightedRoute(String group) {
            return null;
        }
    }
}
