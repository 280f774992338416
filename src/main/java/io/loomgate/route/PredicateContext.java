package io.loomgate.route;

import io.loomgate.http.RequestHead;
import java.util.Map;

/** What a predicate sees: the request head and a place to bind template variables. */
public interface PredicateContext {
    RequestHead request();

    /** Variables bound so far; a predicate may add to it. */
    Map<String, String> variables();
}
