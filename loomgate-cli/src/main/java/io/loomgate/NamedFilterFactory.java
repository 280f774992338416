package io.loomgate;

import io.loomgate.filter.FilterFactory;
import io.loomgate.filter.GatewayFilter;

/** A filter factory under the name the embedding application chose. */
final class NamedFilterFactory extends RenamedFactory<GatewayFilter> implements FilterFactory {
    NamedFilterFactory(String name, FilterFactory factory) {
        super(name, factory);
    }
}
