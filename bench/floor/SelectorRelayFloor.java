import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.CancelledKeyException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.Iterator;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.locks.LockSupport;

/**
 * RelayFloor's shape (W2: one read and one write per message each way, no HTTP) with the waits done another way: every
 * socket stays registered for reading with one {@link Selector}, whose thread reads a ready socket itself and hands
 * the bytes to the virtual thread waiting for them. No read finds nothing and no wait re-arms a registration, which
 * are the two system calls per wait that the JDK's blocking sockets add over HAProxy. The question it answers: is a
 * poller of our own, in plain Java 21, cheaper per request than the JDK's blocking sockets on virtual threads?
 *
 * <p>Usage: {@code java SelectorRelayFloor [LISTEN_PORT [ORIGIN_PORT]]}.
 */
public class SelectorRelayFloor {
    /** A socket's inbound side: the selector thread fills {@code buf} when it is empty and wakes {@code waiter}. */
    static final class Inbound {
        final SocketChannel channel;
        final ByteBuffer buf = ByteBuffer.allocateDirect(8192);
        volatile int filled; // 0 empty, > 0 bytes ready, -1 end of stream
        volatile Thread waiter;
        SelectionKey key;

        Inbound(SocketChannel channel) {
            this.channel = channel;
        }

        /**
         * Called by the waiting virtual thread: the bytes read, or -1 at the end of the stream. The park is untimed, as
         * the gateway's reads are (its watchdog enforces their deadlines): a timed park on JDK 25 arms a timer on the
         * scheduler's delay thread, a futex and a thread switch per wait.
         */
        int await() {
            waiter = Thread.currentThread();
            int n;
            while ((n = filled) == 0) {
                LockSupport.park(this);
            }
            return n;
        }

        /** Called by the waiting thread once it has taken the bytes: the selector may read again. */
        void consumed() {
            buf.clear();
            filled = 0;
        }
    }

    static final Queue<Inbound> toRegister = new ConcurrentLinkedQueue<>();
    static Selector selector;

    public static void main(String[] args) throws IOException {
        int port = args.length > 0 ? Integer.parseInt(args[0]) : 18081;
        int origin = args.length > 1 ? Integer.parseInt(args[1]) : 18080;
        selector = Selector.open();
        if (Boolean.getBoolean("floor.vthread")) {
            blocker = Thread.ofPlatform().daemon().name("select-blocker").start(SelectorRelayFloor::blockLoop);
            poller = Thread.ofVirtual().name("poller").start(SelectorRelayFloor::pollLoop);
        } else {
            Thread.ofPlatform().daemon().name("reader").start(SelectorRelayFloor::readLoop);
        }
        try (ServerSocketChannel server = ServerSocketChannel.open()) {
            server.bind(new InetSocketAddress("127.0.0.1", port), 4096);
            System.out.println("selector relay floor :" + port + " -> 127.0.0.1:" + origin);
            while (true) {
                SocketChannel client = server.accept();
                Thread.ofVirtual().start(() -> relay(client, origin));
            }
        }
    }

    static final int SPINS = Integer.getInteger("floor.spins", 2);
    static volatile Thread poller;
    static volatile Thread blocker;
    static volatile boolean blockWanted;
    static final Object blockLock = new Object();

    /**
     * The poller on a virtual thread: it polls without blocking and yields between polls while other virtual threads
     * have work, so the threads it wakes run on its own carrier with no cross-thread wake-up. When two polls in a row
     * find nothing it hands the blocking select to a platform thread and parks until that returns.
     */
    static void pollLoop() {
        int empty = 0;
        try {
            while (true) {
                registerPending();
                int n = selector.selectNow();
                if (n > 0) {
                    process();
                    empty = 0;
                    Thread.yield();
                } else if (++empty < SPINS) {
                    Thread.yield();
                } else {
                    empty = 0;
                    blockWanted = true;
                    LockSupport.unpark(blocker);
                    while (blockWanted) {
                        LockSupport.park(blockLock);
                    }
                    process();
                }
            }
        } catch (IOException e) {
            throw new RuntimeException(e);
        }
    }

    /** The platform thread that blocks in select for the poller when nothing is ready. */
    static void blockLoop() {
        try {
            while (true) {
                while (!blockWanted) {
                    LockSupport.park(blockLock);
                }
                selector.select();
                blockWanted = false;
                LockSupport.unpark(poller);
            }
        } catch (IOException e) {
            throw new RuntimeException(e);
        }
    }

    /**
     * Registers the sockets the relays opened since the last round. One that closed meanwhile (its client left) ends
     * its relay's wait with the end of the stream instead of ending the poller.
     */
    static void registerPending() {
        for (Inbound in; (in = toRegister.poll()) != null; ) {
            try {
                in.key = in.channel.register(selector, SelectionKey.OP_READ, in);
            } catch (IOException | CancelledKeyException e) {
                in.filled = -1;
                Thread w = in.waiter;
                if (w != null) {
                    LockSupport.unpark(w);
                }
            }
        }
    }

    /** Reads each ready socket whose last bytes were taken, and wakes its waiter. */
    static void process() {
        Iterator<SelectionKey> it = selector.selectedKeys().iterator();
        while (it.hasNext()) {
            SelectionKey key = it.next();
            it.remove();
            Inbound in = (Inbound) key.attachment();
            if (in.filled != 0) {
                continue; // not taken yet: W2's request-response shape never gets here
            }
            int n;
            try {
                n = in.channel.read(in.buf);
            } catch (IOException e) {
                n = -1;
            }
            if (n == 0) {
                continue;
            }
            if (n < 0) {
                key.cancel();
            }
            in.filled = n;
            Thread w = in.waiter;
            if (w != null) {
                LockSupport.unpark(w);
            }
        }
    }

    /** The poller on a platform thread: blocks in select, reads what is ready, wakes the waiting virtual threads. */
    static void readLoop() {
        try {
            while (true) {
                selector.select();
                registerPending();
                process();
            }
        } catch (IOException e) {
            throw new RuntimeException(e);
        }
    }

    static Inbound register(SocketChannel channel) throws IOException {
        channel.configureBlocking(false);
        channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
        Inbound in = new Inbound(channel);
        toRegister.add(in);
        selector.wakeup();
        return in;
    }

    /** Waits for {@code from}'s next bytes and writes them whole to {@code to}; false at the end of the stream. */
    static boolean forward(Inbound from, SocketChannel to) throws IOException {
        if (from.await() < 0) {
            return false;
        }
        from.buf.flip();
        while (from.buf.hasRemaining()) {
            if (to.write(from.buf) == 0) {
                Thread.onSpinWait(); // a full send buffer: W2's small messages never get here
            }
        }
        from.consumed();
        return true;
    }

    private static void relay(SocketChannel client, int originPort) {
        try (client; SocketChannel origin = SocketChannel.open(new InetSocketAddress("127.0.0.1", originPort))) {
            Inbound fromClient = register(client);
            Inbound fromOrigin = register(origin);
            while (forward(fromClient, origin) && forward(fromOrigin, client)) {
                // one request to the origin, one answer back
            }
        } catch (IOException e) {
            // the client or the origin went away: the connection ends
        }
    }
}
