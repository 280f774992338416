package io.loomgate.route;

import io.loomgate.http.RequestHead;
import java.util.List;

/** The routes in match order. Immutable and thread-safe. */
public final class RouteTable {

    public RouteTable(List<Route> routes) {
        throw new UnsupportedOperationException("stub");
    }

    /** The first route (by order, then file position) whose predicates all hold, or null. */
    public RouteMatch match(RequestHead request) {
        throw new UnsupportedOperationException("stub");
    }

    public List<Route> routes() {
        throw new UnsupportedOperationException("stub");
    }
}
