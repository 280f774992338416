package io.loomgate.tls;

import io.loomgate.threads.ConnectionExecutors;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reloads certificates when their files change (polled: a rename over the file, as certificate tools and Kubernetes
 * secret mounts do it, is seen like an edit in place) and on demand (SIGHUP). A broken file keeps the certificate in
 * use and says which file and why, once per change. One platform daemon thread for the whole gateway.
 */
public final class TlsReloader implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(TlsReloader.class);

    private record Watched(String name, Reloadable material) {
    }

    /** What a file looked like last time: a change of any of these is a change of the file. */
    private record Stamp(long modified, long size, Object fileKey) {
    }

    private final List<Watched> watched = new ArrayList<>();
    private final Map<Path, Stamp> stamps = new HashMap<>();
    private final ReentrantLock lock = new ReentrantLock();
    private final Duration interval;
    private volatile boolean stopped;
    private Thread thread;

    public TlsReloader(Duration interval) {
        this.interval = interval;
    }

    /** Watches this material's files from now on; {@code name} says whose it is in logs ({@code server.ssl}). */
    public void watch(String name, Reloadable material) {
        lock.lock();
        try {
            watched.add(new Watched(name, material));
            material.files().forEach(f -> stamps.put(f, stamp(f)));
        } finally {
            lock.unlock();
        }
    }

    /**
     * Takes the current state of this material's files as seen (after it was pointed at other files): the next look
     * reloads it only when one of them changes again.
     */
    public void restamp(Reloadable material) {
        lock.lock();
        try {
            material.files().forEach(f -> stamps.put(f, stamp(f)));
        } finally {
            lock.unlock();
        }
    }

    public TlsReloader start() {
        thread = ConnectionExecutors.startDaemon("tls-reload", this::poll);
        return this;
    }

    private void poll() {
        while (!stopped) {
            LockSupport.parkNanos(interval.toNanos());
            if (!stopped) {
                reloadChanged();
            }
        }
    }

    /** Reloads whatever has a file that changed since the last look. */
    void reloadChanged() {
        lock.lock();
        try {
            for (Watched w : watched) {
                boolean changed = false;
                for (Path f : w.material().files()) {
                    Stamp now = stamp(f);
                    if (!Objects.equals(now, stamps.put(f, now))) {
                        changed = true;
                    }
                }
                if (changed) {
                    reload(w, "a file changed");
                }
            }
        } finally {
            lock.unlock();
        }
    }

    /** Reloads everything now (SIGHUP); returns whether all of it loaded. */
    public boolean reloadAll() {
        lock.lock();
        try {
            boolean ok = true;
            for (Watched w : watched) {
                w.material().files().forEach(f -> stamps.put(f, stamp(f)));
                ok &= reload(w, "asked to");
            }
            return ok;
        } finally {
            lock.unlock();
        }
    }

    private static boolean reload(Watched w, String why) {
        try {
            w.material().reload();
            log.info("{}: certificates reloaded ({}): {}", w.name(), why, w.material().subjects());
            return true;
        } catch (TlsMaterialException | RuntimeException e) {
            log.warn("{}: reload failed, keeping the certificates in use: {}", w.name(), e.getMessage());
            return false;
        }
    }

    private static Stamp stamp(Path f) {
        try {
            BasicFileAttributes a = Files.readAttributes(f, BasicFileAttributes.class);
            return new Stamp(a.lastModifiedTime().to(TimeUnit.NANOSECONDS), a.size(), a.fileKey());
        } catch (IOException e) {
            return new Stamp(-1, -1, null); // missing for now: a change, and the reload will say why
        }
    }

    @Override
    public void close() {
        stopped = true;
        if (thread != null) {
            LockSupport.unpark(thread);
        }
    }
}
