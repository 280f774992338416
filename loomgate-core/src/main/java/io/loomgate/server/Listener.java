package io.loomgate.server;

import io.loomgate.http.ClientCancel;
import io.loomgate.threads.ConnectionExecutors;
import io.loomgate.tls.ServerTls;
import io.loomgate.threads.Watchdog;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.nio.channels.ServerSocketChannel;
import java.time.Duration;
import java.util.Set;
import java.util.function.Consumer;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Accepts connections on one address and runs each on the executor it was given, as a {@link ClientConnection}.
 * Lifecycle: new → {@link #start()} (bound and accepting; or {@link #bind()}, then {@link #startAccepting()}) →
 * {@link #drain(Duration)} (stop accepting, close idle connections, wait for busy ones) → closed. Binding apart from
 * accepting lets a process finish everything else that needs a file descriptor before it takes in connections: the
 * kernel completes clients' handshakes into the backlog as soon as the socket listens, and a crowd reconnecting to a
 * restarted gateway can take every descriptor in the first milliseconds of accepting ({@link #admitAtMost} keeps
 * descriptors for what is still starting after that).
 *
 * <p>Admission: a permit is taken <em>before</em> {@code accept()}, so at max-connections the listener simply stops
 * accepting and further clients wait in the kernel's backlog, costing the gateway nothing, instead of being accepted
 * into a process that has no file descriptors or memory left for them. The same holds while the heap is nearly full
 * after a collection ({@link MemoryGate}), except on a listener made {@link #outsideMemoryGate()}: the admin
 * listener, bounded by its own small max-connections, must go on answering /health/live and /health/ready (which
 * then says 503) while the gate holds the data path's newcomers back.
 *
 * <p>Failed accepts (EMFILE at the file-descriptor limit, ENFILE, ENOBUFS): the loop pauses, 100 ms and doubling up
 * to 1 s while they go on ({@link AcceptBackoff}), so it neither spins on a call that fails at once nor writes a line
 * per attempt: one line when an episode starts, one with its count when an accept succeeds again (as HAProxy and
 * nginx do). Connections already accepted are served meanwhile; each one that ends frees a descriptor.
 *
 * <p>TLS: with a {@link ServerTls} every connection starts with its handshake, on its own thread, never on the
 * accept loop, so a client that opens a connection and sends nothing delays nobody. On a fixed pool of platform
 * threads a new connection, TLS or plain, first waits for its client's first bytes in the idle poller without a thread
 * ({@link ClientConnection#awaitFirstBytesWithoutThread}): silent clients hold none of the pool's few threads.
 *
 * <p>Idle connections: a plain listener accepts channels ({@link ServerSocketChannel}, read through their blocking
 * socket adaptors) so that a keep-alive connection idle longer than {@link #IDLE_HANDOFF} can park in the listener's
 * {@link IdleConnections} instead of keeping a virtual thread (see docs/architecture.md, "Idle connections"). A TLS
 * listener, with either provider, drives the TLS engine over those channels and parks the same way. On
 * {@code transport: epoll} an idle connection, plain or TLS, parks as a readiness callback on the epoll poller
 * ({@link EpollIdleConnections}).
 */
public final class Listener implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(Listener.class);
    private static final AtomicLong CONNECTION_IDS = new AtomicLong();
    /** How long an idle keep-alive connection waits on its own thread before it parks (see IdleConnections). */
    static final Duration IDLE_HANDOFF = Duration.ofSeconds(1);

    private final ListenerSettings settings;
    private final ExchangeHandler handler;
    private final ExecutorService executor;
    /** After the cut exchanges' longest wait ({@link ClientCancel#LONGEST_WAIT}): their unwinding, at load. */
    private static final long UNWIND_NANOS = TimeUnit.SECONDS.toNanos(1);
    /**
     * Whether the executor is a fixed pool of platform threads ({@code threads: platform:N}): a new connection then
     * waits for its client's first bytes in the idle poller, not on one of the pool's threads
     * ({@link ClientConnection#awaitFirstBytesWithoutThread}). Virtual threads, one per connection, wait on their own
     * thread at no cost to anyone else (and the cached pool makes a thread per connection too).
     */
    private final boolean fewThreads;
    private final ConnectionListener events;
    private final ServerTls tls;
    private final Semaphore permits;
    private final Watchdog reads;
    /** Given, or started by {@link #start()} and closed by {@link #drain}; null before start. */
    private Watchdog writes;
    private final boolean ownsWrites;
    private final Set<ClientConnection> open = ConcurrentHashMap.newKeySet();
    private final ReentrantLock drainLock = new ReentrantLock();
    private final Condition connectionClosed = drainLock.newCondition();
    private volatile boolean stopping;
    private final AtomicBoolean accepting = new AtomicBoolean();
    private ServerSocket serverSocket;
    /** Where idle connections park; null for TLS on epoll, and before start. */
    private IdlePoller idleConnections;
    private Duration idleHandoff = IDLE_HANDOFF;
    private int newConnectionHandoffs = IdleConnections.NEW_CONNECTION_HANDOFFS;
    private final Consumer<ClientConnection> connectionEnded = this::connectionEnded;
    private boolean memoryGated = true;
    /** Asked for before start; what runs once started (AUTO resolved). */
    private Transport transport = Transport.JDK;

    public Listener(ListenerSettings settings, ExchangeHandler handler, ExecutorService executor,
                    ConnectionListener events) {
        this(settings, null, handler, executor, events);
    }

    /** A listener speaking TLS when {@code tls} is not null. */
    public Listener(ListenerSettings settings, ServerTls tls, ExchangeHandler handler, ExecutorService executor,
                    ConnectionListener events) {
        this(settings, tls, handler, executor, events, Watchdog.shared(), null);
    }

    /**
     * @param reads  enforces read deadlines (the shared watchdog in production, a driven one in tests)
     * @param writes enforces the write deadline (writes to clients, TLS handshakes); null to start one at
     *               {@link #start()} that looks four times per read timeout (or header timeout, with TLS, if
     *               shorter; at least every 10 ms, at most every second) and stops with the listener
     */
    Listener(ListenerSettings settings, ServerTls tls, ExchangeHandler handler, ExecutorService executor,
             ConnectionListener events, Watchdog reads, Watchdog writes) {
        this.tls = tls;
        this.settings = settings;
        this.handler = handler;
        this.executor = executor;
        this.fewThreads = executor instanceof ThreadPoolExecutor pool
                && pool.getMaximumPoolSize() < Integer.MAX_VALUE;
        this.events = events;
        this.permits = new Semaphore(settings.maxConnections());
        this.reads = reads;
        this.writes = writes;
        this.ownsWrites = writes == null;
    }

    /** Another hand-off delay than {@link #IDLE_HANDOFF}, before {@link #start()} (tests: park sooner). */
    Listener idleHandoff(Duration delay) {
        this.idleHandoff = delay;
        return this;
    }

    /**
     * Another number of new connections that may wait for the hand-off on their own thread at once than
     * {@link IdleConnections#NEW_CONNECTION_HANDOFFS}, before {@link #start()} (tests).
     */
    Listener newConnectionHandoffs(int n) {
        this.newConnectionHandoffs = n;
        return this;
    }

    /**
     * Accepts even while the process's memory gate is shut (before {@link #start()}): for the admin listener, whose
     * own max-connections bounds what it can hold, so health checks are answered while the data path waits.
     */
    public Listener outsideMemoryGate() {
        this.memoryGated = false;
        return this;
    }

    /**
     * The sockets' transport (before {@link #start()}; {@link Transport#JDK} unless set): {@link Transport#EPOLL}
     * needs the module loomgate-epoll on Linux with Java 22+, {@link Transport#AUTO} falls back to JDK with one line.
     */
    public Listener transport(Transport transport) {
        this.transport = java.util.Objects.requireNonNull(transport, "transport");
        return this;
    }

    /** The transport the listener runs on (AUTO resolved once started). */
    public Transport transport() {
        return transport;
    }

    /**
     * Begins, in the background, setting up the JDK's poller for virtual threads that a listener on the JDK's sockets
     * needs before it accepts (its {@link #bind()} waits for it, starting it if this was not called): a gateway's
     * start calls this first, so the setup overlaps the rest of the start instead of being waited for at the bind.
     */
    public static void preparePoller() {
        JdkPoller.start();
    }

    /**
     * Whether data-path listeners accept no new connections now because the heap is nearly full after a collection:
     * what readiness reports, so a load balancer sends new clients elsewhere instead of into a backlog that waits.
     */
    public static boolean memoryGateShut() {
        return MemoryGate.PROCESS.isFull();
    }

    /** Connections parked in the idle poller now (0 on a TLS listener on epoll). */
    int parkedConnections() {
        return idleConnections == null ? 0 : idleConnections.parked();
    }

    /** How many times connections were parked in the idle poller, in all (0 on a TLS listener on epoll). */
    long parks() {
        return idleConnections == null ? 0 : idleConnections.parks();
    }

    /** Binds and starts the accept loop; returns once bound. */
    public Listener start() throws IOException {
        return bind().startAccepting();
    }

    /**
     * Binds, so the port is taken and clients' handshakes complete into the backlog, without accepting any yet:
     * {@link #startAccepting()} does.
     */
    public Listener bind() throws IOException {
        if (serverSocket != null) {
            throw new IllegalStateException("listener already bound to " + serverSocket.getLocalSocketAddress());
        }
        transport = transport.resolve("listener " + settings.address() + ":" + settings.port());
        ServerSocket ss;
        if (transport == Transport.EPOLL) {
            // Sockets with no channel: their idle connections park as readiness callbacks on the epoll poller.
            try {
                ss = EpollSupport.get().listen(
                        new InetSocketAddress(InetAddress.getByName(settings.address()), settings.port()),
                        settings.backlog());
            } catch (IOException e) {
                throw new IOException("cannot listen on " + settings.address() + ":" + settings.port() + ": "
                        + e.getMessage(), e);
            }
        } else {
            JdkPoller.initialize(); // before any connection can take the descriptors it needs
            // The channel's adaptor accepts sockets that are channels too, which an idle connection needs to park.
            ss = ServerSocketChannel.open().socket();
            ss.setReuseAddress(true);
            try {
                ss.bind(new InetSocketAddress(InetAddress.getByName(settings.address()), settings.port()),
                        settings.backlog());
            } catch (IOException e) {
                ss.close();
                throw new IOException("cannot listen on " + settings.address() + ":" + settings.port() + ": "
                        + e.getMessage(), e);
            }
        }
        serverSocket = ss;
        ListenBacklog.reportIfCapped(settings, settings.address() + ":" + port());
        // On epoll the poller already watches every socket: an idle connection parks as a readiness callback there,
        // a TLS one too (since session 47 its TLS state is the gateway's engine loop's, EngineSocket, as on the JDK's
        // sockets, not JSSE's socket layered over the epoll socket, which kept its thread).
        idleConnections = transport != Transport.EPOLL
                ? IdleConnections.start("idle-connections-" + port(), executor, events, reads.clock(),
                        newConnectionHandoffs)
                : EpollIdleConnections.start("idle-connections-" + port(), EpollSupport.get(), executor, events,
                        reads.clock(), newConnectionHandoffs);
        if (ownsWrites) {
            long timeout = settings.readTimeout().toNanos();
            long shortest = tls == null ? timeout : Math.min(timeout, settings.headerTimeout().toNanos());
            long tick = Math.clamp(shortest / 4, 10_000_000L, 1_000_000_000L);
            writes = Watchdog.start("write-watchdog-" + port(), Duration.ofNanos(tick));
        }
        return this;
    }

    /**
     * Admits at most {@code n} connections at once, fewer than max-connections, until the returned action runs (once;
     * later runs do nothing): the permits above {@code n} are held back, so the listener stops accepting at {@code n}
     * as it does at max-connections and the rest wait in the backlog. Call it before {@link #startAccepting()}.
     */
    public Runnable admitAtMost(int n) {
        int held = Math.max(0, settings.maxConnections() - Math.max(1, n));
        if (held == 0 || !permits.tryAcquire(held)) {
            return () -> { };
        }
        AtomicBoolean released = new AtomicBoolean();
        return () -> {
            if (released.compareAndSet(false, true)) {
                permits.release(held);
            }
        };
    }

    /** Starts the accept loop of a {@link #bind() bound} listener (once; later calls do nothing). */
    public Listener startAccepting() {
        if (serverSocket == null) {
            throw new IllegalStateException("listener not bound: bind() first");
        }
        if (accepting.compareAndSet(false, true)) {
            ConnectionExecutors.startDaemon("accept-" + port(), this::acceptLoop);
        }
        return this;
    }

    private void acceptLoop() {
        AcceptBackoff backoff = new AcceptBackoff("port " + port(), System::nanoTime);
        while (!stopping) {
            try {
                permits.acquire();
            } catch (InterruptedException e) {
                return;
            }
            if (memoryGated) {
                MemoryGate.PROCESS.awaitRoom(() -> stopping); // a heap near full: newcomers wait in the backlog
            }
            Socket socket;
            try {
                socket = serverSocket.accept();
            } catch (IOException e) {
                permits.release();
                if (stopping || serverSocket.isClosed()) {
                    return;
                }
                // EMFILE and friends: pause (the backlog holds the clients) instead of spinning on a failing accept.
                LockSupport.parkNanos(backoff.failed(e));
                continue;
            }
            backoff.succeeded();
            if (stopping) {
                // Accepted as the listener closed: drain may have looked at the open connections already. Closed at
                // once, as the kernel closes the rest of the backlog; the client retries elsewhere.
                permits.release();
                closeQuietly(socket);
                return;
            }
            long id = CONNECTION_IDS.incrementAndGet();
            ClientConnection c = new ClientConnection(id, socket, tls, settings, handler, events, connectionEnded,
                    reads, writes, idleConnections, idleHandoff);
            open.add(c);
            if (fewThreads && c.awaitFirstBytesWithoutThread()) {
                continue; // the idle poller runs it on the pool once its client's first bytes come
            }
            try {
                executor.execute(c);
            } catch (RuntimeException e) { // executor shut down during drain: refused unserved
                open.remove(c);
                permits.release();
                c.close(); // the socket, and a TLS connection's handshake deadline
                events.connectionRejected((InetSocketAddress) socket.getRemoteSocketAddress());
            }
        }
    }

    /** A connection's end: its permit back, drain told. One instance for all connections (idle memory). */
    private void connectionEnded(ClientConnection c) {
        open.remove(c);
        permits.release();
        signalClosed();
    }

    private void signalClosed() {
        drainLock.lock();
        try {
            connectionClosed.signalAll();
        } finally {
            drainLock.unlock();
        }
    }

    /** The bound address (with the real port when 0 was asked). */
    public InetSocketAddress address() {
        return (InetSocketAddress) serverSocket.getLocalSocketAddress();
    }

    public int port() {
        return address().getPort();
    }

    /** The listener's TLS, or null when it speaks plain HTTP. */
    public ServerTls tls() {
        return tls;
    }

    /** Client connections open now. */
    public int openConnections() {
        return open.size();
    }

    /** Whether the listener is draining or closed. */
    public boolean isStopping() {
        return stopping;
    }

    /**
     * Stops accepting, closes idle keep-alive connections, lets requests in flight finish until the timeout, then
     * closes what is left. Returns whether every connection finished in time.
     */
    public boolean drain(Duration timeout) throws InterruptedException {
        stopping = true;
        // Closing the socket ends a blocked accept; one more permit wakes an accept loop waiting for one (the count
        // means nothing once stopping). Never an interrupt: an accept that completes as the interrupt lands throws
        // ClosedByInterruptException instead of returning its socket, which is then lost, open and unread, its client
        // waiting for its own read timeout (DrainWhileAcceptingTest).
        closeQuietly(serverSocket);
        permits.release();
        long deadline = System.nanoTime() + timeout.toNanos();
        drainLock.lock();
        try {
            while (true) {
                // Connections finishing a request become idle and are closed on a later pass.
                for (ClientConnection c : open) {
                    c.closeIfIdle();
                }
                long left = deadline - System.nanoTime();
                if (open.isEmpty() || left <= 0) {
                    break;
                }
                connectionClosed.awaitNanos(Math.min(left, 50_000_000L));
            }
        } finally {
            drainLock.unlock();
        }
        long busy = open.stream().filter(ClientConnection::isBusy).count();
        boolean clean = busy == 0;
        int gone = DrainCut.lookForClientsThatLeft(open); // their exchanges are the clients', not the cut's
        if (!clean) {
            log.warn("drain timeout: cutting {} connection(s) still in the middle of a request{}", busy,
                    gone == 0 ? "" : " (" + gone + " of them already left by their client)");
        }
        for (ClientConnection c : open) {
            c.abortForDrain();
        }
        if (idleConnections != null) {
            idleConnections.close(); // ends what is still parked (the aborts above closed their sockets)
        }
        executor.shutdown();
        // The cut exchanges were cancelled (abortForDrain; an HTTP/2 connection's end cancels its streams): each ends
        // within the cancel's bound, then logs and counts itself as it unwinds. The wait covers both, or the process
        // could exit before an exchange whose origin was slow had its access-log line (session 59).
        executor.awaitTermination(ClientCancel.LONGEST_WAIT.toNanos() + UNWIND_NANOS, TimeUnit.NANOSECONDS);
        if (ownsWrites && writes != null) {
            writes.close();
        }
        return clean;
    }

    /** Drains with no grace period. */
    @Override
    public void close() {
        try {
            drain(Duration.ZERO);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void closeQuietly(java.io.Closeable c) {
        if (c == null) {
            return;
        }
        try {
            c.close();
        } catch (IOException e) {
            // closing on shutdown: nothing useful to do
        }
    }

}
