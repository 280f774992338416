package io.loomgate.lab.backend;

import io.loomgate.server.ServerExchange;
import java.io.IOException;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Array;
import java.time.Duration;

/**
 * Blocks a request's thread while it is pinned to its carrier, to show what pinning costs virtual threads, beside
 * the same wait unpinned.
 *
 * <p>Which blocking pins depends on the running JDK. On 21-23 a virtual thread that blocks inside
 * {@code synchronized} pins. JDK 24 (JEP 491) removed that cause, so there the wait runs under a native frame, which
 * still pins on every JDK: Java calls a native stub made by the Foreign Function and Memory API, which calls back
 * into Java (an upcall) where the thread sleeps. The FFM API is final only from JDK 22 and this code is compiled for
 * 21, so it is reached reflectively, once, at construction. JFR reports these waits as
 * {@code jdk.VirtualThreadPinned}.
 */
final class PinnedBlock {
    private static final boolean MONITORS_PIN = Runtime.version().feature() < 24;
    private final Object monitor = new Object();

    /** What pins on this JDK. */
    String cause() {
        return MONITORS_PIN ? "sleep inside synchronized" : "sleep inside a native upcall (FFM)";
    }

    void serve(ServerExchange ex, long ms, boolean pin) throws IOException {
        long started = System.nanoTime();
        if (pin) {
            blockPinned(ms);
        } else {
            MockOrigin.sleep(Duration.ofMillis(ms));
        }
        long took = (System.nanoTime() - started) / 1_000_000;
        ex.respond(200, (pin ? "pinned (" + cause() + ")" : "unpinned") + " for " + took + " ms on "
                + Thread.currentThread() + "\n");
    }

    void blockPinned(long ms) throws IOException {
        if (!MONITORS_PIN) {
            try {
                NativeSleep.HANDLE.invoke(ms);
            } catch (Throwable t) {
                throw new IOException("the native upcall failed", t);
            }
        } else {
            // The one deliberate synchronized block of the code base: on JDK 21-23, pinning is exactly what it does.
            synchronized (monitor) {
                MockOrigin.sleep(Duration.ofMillis(ms));
            }
        }
    }

    /** The upcall target. It must not throw: an exception escaping an upcall ends the JVM. */
    static void sleepInUpcall(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Throwable t) {
            // swallowed on purpose, see above
        }
    }

    /**
     * A native function {@code void f(long ms)} that upcalls {@link #sleepInUpcall}, built on first use (the JDK
     * warns about restricted methods when it is built, so a backend that never pins never warns).
     */
    private static final class NativeSleep {
        static final MethodHandle HANDLE = nativeSleepHandle();
    }

    /**
     * Builds, through reflection, what this JDK 22+ code does: {@code Linker l = Linker.nativeLinker();
     * MemorySegment stub = l.upcallStub(target, FunctionDescriptor.ofVoid(JAVA_LONG), Arena.global());
     * return l.downcallHandle(stub, FunctionDescriptor.ofVoid(JAVA_LONG));}
     */
    private static MethodHandle nativeSleepHandle() {
        try {
            Class<?> linkerClass = Class.forName("java.lang.foreign.Linker");
            Class<?> option = Class.forName("java.lang.foreign.Linker$Option");
            Class<?> descriptorClass = Class.forName("java.lang.foreign.FunctionDescriptor");
            Class<?> layoutClass = Class.forName("java.lang.foreign.MemoryLayout");
            Class<?> arenaClass = Class.forName("java.lang.foreign.Arena");
            Class<?> segmentClass = Class.forName("java.lang.foreign.MemorySegment");
            Object javaLong = Class.forName("java.lang.foreign.ValueLayout").getField("JAVA_LONG").get(null);
            Object layouts = Array.newInstance(layoutClass, 1);
            Array.set(layouts, 0, javaLong);
            Object descriptor = descriptorClass.getMethod("ofVoid", layouts.getClass()).invoke(null, layouts);
            Object linker = linkerClass.getMethod("nativeLinker").invoke(null);
            Object arena = arenaClass.getMethod("global").invoke(null);
            Object noOptions = Array.newInstance(option, 0);
            MethodHandle target = MethodHandles.lookup().findStatic(PinnedBlock.class, "sleepInUpcall",
                    MethodType.methodType(void.class, long.class));
            Object stub = linkerClass.getMethod("upcallStub", MethodHandle.class, descriptorClass, arenaClass,
                    noOptions.getClass()).invoke(linker, target, descriptor, arena, noOptions);
            return (MethodHandle) linkerClass.getMethod("downcallHandle", segmentClass, descriptorClass,
                    noOptions.getClass()).invoke(linker, stub, descriptor, noOptions);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot build a native upcall on JDK " + Runtime.version(), e);
        }
    }
}
