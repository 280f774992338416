package io.loomgate.filter;

import io.loomgate.http.Headers;
import java.util.List;

/**
 * Removes every response header field of a name: {@code RemoveResponseHeader=X-Response-Foo}.
 */
final class RemoveResponseHeaderFilter implements ResponseFieldsFilter {
    static final FilterFactory FACTORY = new BuiltinFilterFactory("RemoveResponseHeader", List.of("name"),
            args -> new RemoveResponseHeaderFilter(args.required("name")));

    private final String name;

    RemoveResponseHeaderFilter(String name) {
        this.name = HeaderFields.name("name", name);
    }

    @Override
    public void editResponse(Headers fields) {
        fields.remove(name);
    }

    @Override
    public String toString() {
        return "RemoveResponseHeader[" + name + "]";
    }
}
