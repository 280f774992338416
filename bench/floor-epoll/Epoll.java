import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

/**
 * The libc calls of the epoll floor, as downcall handles of the foreign-function API (final in Java 22), each with
 * {@code errno} captured into a segment the caller owns (a caller's own, so that two threads calling at once do not
 * share one). Linux on x86-64 and aarch64 only: the constants and {@code struct epoll_event}'s layout are theirs.
 * One job: make the calls; readiness and its waiting are {@link EpollPoller}'s and {@link EpollSocket}'s.
 */
final class Epoll {
    static final int EPOLLIN = 0x1;
    static final int EPOLLOUT = 0x4;
    static final int EPOLLERR = 0x8;
    static final int EPOLLHUP = 0x10;
    static final int EPOLLRDHUP = 0x2000;
    static final int EPOLLET = 1 << 31;
    static final int EPOLL_CTL_ADD = 1;
    static final int EPOLL_CLOEXEC = 0x80000;
    static final int AF_INET = 2;
    static final int SOCK_STREAM = 1;
    static final int SOCK_NONBLOCK = 0x800;
    static final int SOCK_CLOEXEC = 0x80000;
    static final int SOL_SOCKET = 1;
    static final int SO_REUSEADDR = 2;
    static final int SO_ERROR = 4;
    static final int IPPROTO_TCP = 6;
    static final int TCP_NODELAY = 1;
    static final int EINTR = 4;
    static final int EAGAIN = 11;
    static final int EINPROGRESS = 115;

    /** {@code struct epoll_event}: packed on x86-64 (12 bytes), so {@code data} is an unaligned long at 4. */
    static final long EVENT_SIZE = 12;
    static final StructLayout SOCKADDR_IN = MemoryLayout.structLayout(
            JAVA_SHORT.withName("family"), JAVA_SHORT.withName("port"), JAVA_INT.withName("addr"),
            MemoryLayout.sequenceLayout(8, java.lang.foreign.ValueLayout.JAVA_BYTE).withName("zero"));

    private static final Linker LINKER = Linker.nativeLinker();
    private static final StructLayout CAPTURE = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO = CAPTURE.varHandle(MemoryLayout.PathElement.groupElement("errno"));
    private static final MethodHandle READ = handle("read", FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG));
    private static final MethodHandle WRITE = handle("write", FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG));
    private static final MethodHandle CLOSE = handle("close", FunctionDescriptor.of(JAVA_INT, JAVA_INT));
    private static final MethodHandle EPOLL_CREATE1 = handle("epoll_create1", FunctionDescriptor.of(JAVA_INT, JAVA_INT));
    private static final MethodHandle EPOLL_CTL =
            handle("epoll_ctl", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, ADDRESS));
    private static final MethodHandle EPOLL_WAIT =
            handle("epoll_wait", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT));
    private static final MethodHandle SOCKET =
            handle("socket", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT));
    private static final MethodHandle BIND = handle("bind", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT));
    private static final MethodHandle CONNECT =
            handle("connect", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT));
    private static final MethodHandle LISTEN = handle("listen", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT));
    private static final MethodHandle ACCEPT4 =
            handle("accept4", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, ADDRESS, JAVA_INT));
    private static final MethodHandle SETSOCKOPT = handle("setsockopt",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT));
    private static final MethodHandle GETSOCKOPT = handle("getsockopt",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, ADDRESS, ADDRESS));

    private Epoll() {
    }

    private static MethodHandle handle(String name, FunctionDescriptor descriptor) {
        MemorySegment symbol = LINKER.defaultLookup().find(name).orElseThrow(() -> new UnsatisfiedLinkError(name));
        return LINKER.downcallHandle(symbol, descriptor, Linker.Option.captureCallState("errno"));
    }

    /** A segment for one thread's captured {@code errno}, from the arena of whatever owns that thread's calls. */
    static MemorySegment errnoSegment(Arena arena) {
        return arena.allocate(CAPTURE);
    }

    static int errno(MemorySegment captured) {
        return (int) ERRNO.get(captured, 0L);
    }

    static long read(MemorySegment errno, int fd, MemorySegment buf, long length) {
        try {
            return (long) READ.invokeExact(errno, fd, buf, length);
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    static long write(MemorySegment errno, int fd, MemorySegment buf, long length) {
        try {
            return (long) WRITE.invokeExact(errno, fd, buf, length);
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    static int close(MemorySegment errno, int fd) {
        try {
            return (int) CLOSE.invokeExact(errno, fd);
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    static int epollCreate(MemorySegment errno) {
        try {
            return (int) EPOLL_CREATE1.invokeExact(errno, EPOLL_CLOEXEC);
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    static int epollCtl(MemorySegment errno, int epfd, int op, int fd, MemorySegment event) {
        try {
            return (int) EPOLL_CTL.invokeExact(errno, epfd, op, fd, event);
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    static int epollWait(MemorySegment errno, int epfd, MemorySegment events, int max, int timeoutMillis) {
        try {
            return (int) EPOLL_WAIT.invokeExact(errno, epfd, events, max, timeoutMillis);
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    static int socket(MemorySegment errno) {
        try {
            return (int) SOCKET.invokeExact(errno, AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    static int bind(MemorySegment errno, int fd, MemorySegment address) {
        try {
            return (int) BIND.invokeExact(errno, fd, address, (int) address.byteSize());
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    static int connect(MemorySegment errno, int fd, MemorySegment address) {
        try {
            return (int) CONNECT.invokeExact(errno, fd, address, (int) address.byteSize());
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    static int listen(MemorySegment errno, int fd, int backlog) {
        try {
            return (int) LISTEN.invokeExact(errno, fd, backlog);
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    static int accept(MemorySegment errno, int fd) {
        try {
            return (int) ACCEPT4.invokeExact(errno, fd, MemorySegment.NULL, MemorySegment.NULL,
                    SOCK_NONBLOCK | SOCK_CLOEXEC);
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    static int setIntOption(MemorySegment errno, int fd, int level, int option, MemorySegment intValue) {
        try {
            return (int) SETSOCKOPT.invokeExact(errno, fd, level, option, intValue, (int) intValue.byteSize());
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    static int getIntOption(MemorySegment errno, int fd, int level, int option, MemorySegment intValue,
            MemorySegment length) {
        try {
            return (int) GETSOCKOPT.invokeExact(errno, fd, level, option, intValue, length);
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    /** 127.0.0.1:port as a {@code struct sockaddr_in} (port and address in network order). */
    static MemorySegment loopback(Arena arena, int port) {
        MemorySegment a = arena.allocate(SOCKADDR_IN);
        a.set(JAVA_SHORT, 0, (short) AF_INET);
        a.set(JAVA_SHORT.withOrder(java.nio.ByteOrder.BIG_ENDIAN), 2, (short) port);
        a.set(JAVA_INT.withOrder(java.nio.ByteOrder.BIG_ENDIAN), 4, 0x7f000001);
        return a;
    }

    static int eventMask(MemorySegment events, int i) {
        return events.get(JAVA_INT, i * EVENT_SIZE);
    }

    static long eventData(MemorySegment events, int i) {
        return events.get(JAVA_LONG_UNALIGNED, i * EVENT_SIZE + 4);
    }

    static void setEvent(MemorySegment event, int mask, long data) {
        event.set(JAVA_INT, 0, mask);
        event.set(JAVA_LONG_UNALIGNED, 4, data);
    }
}
