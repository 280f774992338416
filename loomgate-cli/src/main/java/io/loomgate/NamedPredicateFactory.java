package io.loomgate;

import io.loomgate.route.PredicateFactory;
import io.loomgate.route.RoutePredicate;

/** A predicate factory under the name the embedding application chose. */
final class NamedPredicateFactory extends RenamedFactory<RoutePredicate> implements PredicateFactory {
    NamedPredicateFactory(String name, PredicateFactory factory) {
        super(name, factory);
    }
}
