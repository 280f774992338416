package io.loomgate.filter;

import io.loomgate.extension.ExtensionRegistry;
import java.util.List;

/**
 * The filter factories configuration can name: the built-ins plus any a user registers
 * ({@code FilterRegistry.withBuiltIns().register(myFactory)}, then pass it to {@code GatewayAssembly.build}).
 * A new built-in is one line in {@link #BUILT_INS}.
 */
public final class FilterRegistry extends ExtensionRegistry<FilterFactory, FilterRegistry> {
    private static final List<FilterFactory> BUILT_INS = List.of(
            StripPrefixFilter.FACTORY,
            PrefixPathFilter.FACTORY,
            RewritePathFilter.FACTORY,
            SetPathFilter.FACTORY,
            HeaderFilter.ADD_REQUEST,
            HeaderFilter.SET_REQUEST,
            RemoveRequestHeaderFilter.FACTORY,
            HeaderFilter.ADD_RESPONSE,
            HeaderFilter.SET_RESPONSE,
            RemoveResponseHeaderFilter.FACTORY,
            SetStatusFilter.FACTORY,
            RedirectToFilter.FACTORY,
            HeaderFilter.SET_REQUEST_HOST,
            MapRequestHeaderFilter.FACTORY,
            AddRequestHeadersIfNotPresentFilter.FACTORY,
            DedupeResponseHeaderFilter.FACTORY,
            RequestParameterFilter.ADD,
            RequestParameterFilter.REMOVE,
            RewriteResponseHeaderFilter.FACTORY,
            PreserveHostHeaderFilter.FACTORY,
            RewriteRequestParameterFilter.FACTORY,
            RewriteLocationResponseHeaderFilter.FACTORY,
            LocalResponseCacheFilter.FACTORY,
            CacheRequestBodyFilter.FACTORY);

    private FilterRegistry() {
        super("filter", BUILT_INS);
    }

    /** A registry of the built-in filters, to which more can be added. */
    public static FilterRegistry withBuiltIns() {
        return new FilterRegistry();
    }
}
