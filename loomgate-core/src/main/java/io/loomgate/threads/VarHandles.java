package io.loomgate.threads;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The one way a class of the gateway finds a {@link VarHandle} to one of its own fields (the compare-and-set state of
 * a connection, a deadline, a readiness callback): a field that is not there is a build error made late, so it ends
 * the class's initialisation at once rather than being handled.
 */
public final class VarHandles {
    private VarHandles() {
    }

    /**
     * A handle to the field {@code name} of type {@code type} in the class {@code lookup} was made in (call with
     * {@code MethodHandles.lookup()}, from that class's static initialiser).
     */
    public static VarHandle field(MethodHandles.Lookup lookup, String name, Class<?> type) {
        try {
            return lookup.findVarHandle(lookup.lookupClass(), name, type);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }
}
