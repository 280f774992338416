package io.loomgate.server;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.nio.ByteOrder;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED;
import static java.lang.foreign.ValueLayout.JAVA_SHORT_UNALIGNED;

/**
 * The libc calls of the epoll transport, as downcall handles of the foreign-function API (final in Java 22). One job:
 * make the calls; readiness and waiting are {@link EpollPoller}'s and {@link EpollSocket}'s.
 *
 * <p>The calls that never block (read, send, accept4, connect, epoll_ctl, setsockopt, getsockopt, getsockname,
 * shutdown on non-blocking sockets) are linked {@linkplain Linker.Option#critical(boolean) critical with heap
 * access}: they read and write the caller's {@code byte[]} in place and capture {@code errno} into the caller's own
 * {@code int[]}, so a socket holds no native memory at all and nothing is copied. (A critical call holds the GC off
 * for its length: a few microseconds here.) {@code epoll_wait}, which blocks, and {@code close} are ordinary calls on
 * native memory the poller owns.
 *
 * <p>Linux on x86-64 and aarch64 only: the constants and {@code struct epoll_event}'s layout (packed, 12 bytes, on
 * x86-64; 16 on aarch64) are theirs; {@link #UNAVAILABLE} says why not elsewhere.
 */
final class Libc {
    static final int EPOLLIN = 0x1;
    static final int EPOLLOUT = 0x4;
    static final int EPOLLERR = 0x8;
    static final int EPOLLHUP = 0x10;
    static final int EPOLLRDHUP = 0x2000;
    static final int EPOLLET = 1 << 31;
    static final int EPOLL_CTL_ADD = 1;
    static final int EPOLL_CTL_DEL = 2;
    static final int EPOLL_CLOEXEC = 0x80000;
    static final int AF_INET = 2;
    static final int AF_INET6 = 10;
    static final int SOCK_STREAM = 1;
    static final int SOCK_NONBLOCK = 0x800;
    static final int SOCK_CLOEXEC = 0x80000;
    static final int SOL_SOCKET = 1;
    static final int SO_REUSEADDR = 2;
    static final int SO_ERROR = 4;
    static final int SO_KEEPALIVE = 9;
    static final int IPPROTO_TCP = 6;
    static final int TCP_NODELAY = 1;
    static final int SHUT_RD = 0;
    static final int SHUT_WR = 1;
    static final int MSG_NOSIGNAL = 0x4000;
    /** {@code ioctl} request: the bytes in the receive queue (as the JDK's {@code available()} asks). */
    static final int FIONREAD = 0x541B;
    static final int EINTR = 4;
    static final int EAGAIN = 11;
    static final int ENOMEM = 12;
    static final int ENFILE = 23;
    static final int EMFILE = 24;
    static final int EPIPE = 32;
    static final int ECONNABORTED = 103;
    static final int ECONNRESET = 104;
    static final int ENOBUFS = 105;
    static final int EISCONN = 106;
    static final int ENOTCONN = 107;
    static final int ETIMEDOUT = 110;
    static final int EADDRINUSE = 98;
    static final int EADDRNOTAVAIL = 99;
    static final int EACCES = 13;
    static final int ENETUNREACH = 101;
    static final int ECONNREFUSED = 111;
    static final int EHOSTUNREACH = 113;
    static final int EALREADY = 114;
    static final int EINPROGRESS = 115;

    /** A {@code struct sockaddr_storage}: room for either family. */
    static final int SOCKADDR_SIZE = 128;

    /** Why the calls cannot run here, or null when they linked. */
    static final String UNAVAILABLE;
    static final long EVENT_SIZE;
    private static final long EVENT_DATA_OFFSET;

    private static final Linker LINKER = Linker.nativeLinker();
    private static final Linker.Option ERRNO = Linker.Option.captureCallState("errno");
    private static final Linker.Option HEAP = Linker.Option.critical(true);
    private static final MethodHandle READ;
    private static final MethodHandle SEND;
    private static final MethodHandle CLOSE;
    private static final MethodHandle SHUTDOWN;
    private static final MethodHandle EPOLL_CREATE1;
    private static final MethodHandle EPOLL_CTL;
    private static final MethodHandle EPOLL_WAIT;
    private static final MethodHandle SOCKET;
    private static final MethodHandle BIND;
    private static final MethodHandle LISTEN;
    private static final MethodHandle ACCEPT4;
    private static final MethodHandle SETSOCKOPT;
    private static final MethodHandle GETSOCKNAME;
    private static final MethodHandle CONNECT;
    private static final MethodHandle GETSOCKOPT;
    private static final MethodHandle IOCTL;

    static {
        String arch = System.getProperty("os.arch", "");
        String why = null;
        long eventSize = 12;
        long dataOffset = 4;
        if (arch.equals("aarch64")) {
            eventSize = 16;
            dataOffset = 8;
        } else if (!arch.equals("amd64") && !arch.equals("x86_64")) {
            why = "epoll's transport knows Linux on x86-64 and aarch64 only (this is " + arch + ")";
        }
        EVENT_SIZE = eventSize;
        EVENT_DATA_OFFSET = dataOffset;
        MethodHandle read = null;
        MethodHandle send = null;
        MethodHandle close = null;
        MethodHandle shutdown = null;
        MethodHandle create = null;
        MethodHandle ctl = null;
        MethodHandle wait = null;
        MethodHandle socket = null;
        MethodHandle bind = null;
        MethodHandle listen = null;
        MethodHandle accept = null;
        MethodHandle setsockopt = null;
        MethodHandle getsockname = null;
        MethodHandle connect = null;
        MethodHandle getsockopt = null;
        MethodHandle ioctl = null;
        if (why == null) {
            try {
                read = handle("read", FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG), ERRNO, HEAP);
                send = handle("send", FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT),
                        ERRNO, HEAP);
                close = handle("close", FunctionDescriptor.of(JAVA_INT, JAVA_INT));
                shutdown = handle("shutdown", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT), ERRNO, HEAP);
                create = handle("epoll_create1", FunctionDescriptor.of(JAVA_INT, JAVA_INT), ERRNO, HEAP);
                ctl = handle("epoll_ctl", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, ADDRESS),
                        ERRNO, HEAP);
                wait = handle("epoll_wait", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT),
                        ERRNO);
                socket = handle("socket", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT), ERRNO, HEAP);
                bind = handle("bind", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT), ERRNO, HEAP);
                listen = handle("listen", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT), ERRNO, HEAP);
                accept = handle("accept4", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, ADDRESS, JAVA_INT),
                        ERRNO, HEAP);
                setsockopt = handle("setsockopt",
                        FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT), ERRNO, HEAP);
                getsockname = handle("getsockname", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, ADDRESS),
                        ERRNO, HEAP);
                // on a non-blocking socket connect returns at once (EINPROGRESS); the poller reports the outcome
                connect = handle("connect", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT), ERRNO, HEAP);
                getsockopt = handle("getsockopt",
                        FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, ADDRESS, ADDRESS), ERRNO, HEAP);
                // ioctl is variadic: its third argument is the first of the variable ones
                ioctl = handle("ioctl", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_LONG, ADDRESS),
                        ERRNO, HEAP, Linker.Option.firstVariadicArg(2));
            } catch (RuntimeException | LinkageError e) {
                why = "epoll's libc calls did not link: " + e;
            }
        }
        UNAVAILABLE = why;
        READ = read;
        SEND = send;
        CLOSE = close;
        SHUTDOWN = shutdown;
        EPOLL_CREATE1 = create;
        EPOLL_CTL = ctl;
        EPOLL_WAIT = wait;
        SOCKET = socket;
        BIND = bind;
        LISTEN = listen;
        ACCEPT4 = accept;
        SETSOCKOPT = setsockopt;
        GETSOCKNAME = getsockname;
        CONNECT = connect;
        GETSOCKOPT = getsockopt;
        IOCTL = ioctl;
    }

    private Libc() {
    }

    private static MethodHandle handle(String name, FunctionDescriptor descriptor, Linker.Option... options) {
        MemorySegment symbol = LINKER.defaultLookup().find(name).orElseThrow(() -> new UnsatisfiedLinkError(name));
        return LINKER.downcallHandle(symbol, descriptor, options);
    }

    /** A caller's own place for a captured {@code errno} (on the heap: the calls that capture it are critical). */
    static MemorySegment errnoSegment() {
        return MemorySegment.ofArray(new int[(int) ((Linker.Option.captureStateLayout().byteSize() + 3) / 4)]);
    }

    /** A native place for {@code errno}, for the call that is not critical ({@code epoll_wait}). */
    static MemorySegment errnoSegment(Arena arena) {
        return arena.allocate(Linker.Option.captureStateLayout());
    }

    static int errno(MemorySegment captured) {
        // errno is the capture layout's only member on Linux, at offset 0
        return captured.get(JAVA_INT_UNALIGNED, 0);
    }

    /** errno as its name and meaning, for messages. */
    static String describe(int errno) {
        return switch (errno) {
            case EMFILE -> "Too many open files (EMFILE)";
            case ENFILE -> "Too many open files in system (ENFILE)";
            case ENOBUFS -> "No buffer space available (ENOBUFS)";
            case ENOMEM -> "Cannot allocate memory (ENOMEM)";
            case ECONNRESET -> "Connection reset by peer (ECONNRESET)";
            case EPIPE -> "Broken pipe (EPIPE)";
            case ECONNABORTED -> "Connection aborted (ECONNABORTED)";
            case ETIMEDOUT -> "Connection timed out (ETIMEDOUT)";
            case ENOTCONN -> "Socket not connected (ENOTCONN)";
            case EADDRINUSE -> "Address already in use (EADDRINUSE)";
            case EADDRNOTAVAIL -> "Cannot assign requested address (EADDRNOTAVAIL)";
            case EACCES -> "Permission denied (EACCES)";
            case ECONNREFUSED -> "Connection refused (ECONNREFUSED)";
            case EHOSTUNREACH -> "No route to host (EHOSTUNREACH)";
            case ENETUNREACH -> "Network is unreachable (ENETUNREACH)";
            default -> "errno " + errno;
        };
    }

    static long read(MemorySegment errno, int fd, MemorySegment buf, long length) {
        try {
            return (long) READ.invokeExact(errno, fd, buf, length);
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    /** {@code send} with {@code MSG_NOSIGNAL}: a peer gone answers EPIPE, never SIGPIPE. */
    static long send(MemorySegment errno, int fd, MemorySegment buf, long length) {
        try {
            return (long) SEND.invokeExact(errno, fd, buf, length, MSG_NOSIGNAL);
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    static int close(int fd) {
        try {
            return (int) CLOSE.invokeExact(fd);
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    static int shutdown(MemorySegment errno, int fd, int how) {
        try {
            return (int) SHUTDOWN.invokeExact(errno, fd, how);
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

    static int socket(MemorySegment errno, int family) {
        try {
            return (int) SOCKET.invokeExact(errno, family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
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

    static int listen(MemorySegment errno, int fd, int backlog) {
        try {
            return (int) LISTEN.invokeExact(errno, fd, backlog);
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    /** {@code accept4} (non-blocking, close-on-exec); the peer's address into {@code address} (length in/out). */
    static int accept(MemorySegment errno, int fd, MemorySegment address, MemorySegment length) {
        try {
            return (int) ACCEPT4.invokeExact(errno, fd, address, length, SOCK_NONBLOCK | SOCK_CLOEXEC);
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    static int setIntOption(MemorySegment errno, int fd, int level, int option, int value) {
        try {
            return (int) SETSOCKOPT.invokeExact(errno, fd, level, option,
                    MemorySegment.ofArray(new int[] {value}), 4);
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    /** {@code connect} to a {@link #sockaddr}; on a non-blocking socket usually -1 with {@link #EINPROGRESS}. */
    static int connect(MemorySegment errno, int fd, MemorySegment address) {
        try {
            return (int) CONNECT.invokeExact(errno, fd, address, (int) address.byteSize());
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    /** An int socket option into {@code value[0]} (for {@code SO_ERROR}: a finished connect's outcome). */
    static int intOption(MemorySegment errno, int fd, int level, int option, int[] value) {
        try {
            return (int) GETSOCKOPT.invokeExact(errno, fd, level, option, MemorySegment.ofArray(value),
                    MemorySegment.ofArray(new int[] {4}));
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    /** A failed call ({@code result < 0}) as a {@link java.net.SocketException} naming it and its errno. */
    static void check(int result, String call, MemorySegment errno) throws java.net.SocketException {
        if (result < 0) {
            throw new java.net.SocketException(call + ": " + describe(errno(errno)));
        }
    }

    static int getsockname(MemorySegment errno, int fd, MemorySegment address, MemorySegment length) {
        try {
            return (int) GETSOCKNAME.invokeExact(errno, fd, address, length);
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    /** The bytes waiting in the fd's receive queue ({@code ioctl FIONREAD}) into {@code count[0]}; -1 on failure. */
    static int bytesWaiting(MemorySegment errno, int fd, int[] count) {
        try {
            return (int) IOCTL.invokeExact(errno, fd, (long) FIONREAD, MemorySegment.ofArray(count));
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    /** A {@code struct sockaddr_in} or {@code sockaddr_in6} for this address (port and address in network order). */
    static MemorySegment sockaddr(java.net.InetSocketAddress address) {
        byte[] ip = address.getAddress().getAddress();
        byte[] out = new byte[ip.length == 4 ? 16 : 28];
        MemorySegment s = MemorySegment.ofArray(out);
        s.set(JAVA_SHORT_UNALIGNED, 0, (short) (ip.length == 4 ? AF_INET : AF_INET6));
        s.set(JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN), 2, (short) address.getPort());
        MemorySegment.copy(MemorySegment.ofArray(ip), 0, s, ip.length == 4 ? 4 : 8, ip.length);
        if (ip.length == 16 && address.getAddress() instanceof java.net.Inet6Address a6) {
            s.set(JAVA_INT_UNALIGNED, 24, a6.getScopeId());
        }
        return s;
    }

    /** The address in a {@code sockaddr_storage} that a call filled; null for a family other than IPv4 and IPv6. */
    static java.net.InetSocketAddress address(byte[] storage) {
        MemorySegment s = MemorySegment.ofArray(storage);
        int family = s.get(JAVA_SHORT_UNALIGNED, 0);
        int port = Short.toUnsignedInt(s.get(JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN), 2));
        try {
            if (family == AF_INET) {
                return new java.net.InetSocketAddress(
                        java.net.InetAddress.getByAddress(java.util.Arrays.copyOfRange(storage, 4, 8)), port);
            }
            if (family == AF_INET6) {
                return new java.net.InetSocketAddress(
                        java.net.InetAddress.getByAddress(java.util.Arrays.copyOfRange(storage, 8, 24)), port);
            }
        } catch (java.net.UnknownHostException e) {
            throw new AssertionError(e); // only for a wrong length
        }
        return null;
    }

    static int eventMask(MemorySegment events, int i) {
        return events.get(JAVA_INT_UNALIGNED, i * EVENT_SIZE);
    }

    static long eventData(MemorySegment events, int i) {
        return events.get(JAVA_LONG_UNALIGNED, i * EVENT_SIZE + EVENT_DATA_OFFSET);
    }

    static void setEvent(MemorySegment event, int mask, long data) {
        event.set(JAVA_INT_UNALIGNED, 0, mask);
        event.set(JAVA_LONG_UNALIGNED, EVENT_DATA_OFFSET, data);
    }
}
