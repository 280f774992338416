package io.loomgate.cli;

import io.loomgate.threads.ConnectionExecutors;
import java.io.IOException;
import java.nio.file.ClosedWatchServiceException;
import java.nio.file.Path;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchEvent;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Watches the configuration file and offers its content for a reload once it has stopped changing. A writer that
 * rewrites the file in place (an editor, {@code cat > file}, a slow network mount) leaves it half-written for as long
 * as it pauses, so a change is offered only after {@code settle} in which every look at the file (content digest,
 * size, modification time, inode: {@link ConfigFileLook}) saw the same thing, and the reloader gets exactly those
 * bytes. A file the reloader holds back (it drops routes or protective filters: {@link ConfigLosses}) is offered
 * again, confirmed, once it has stayed the same for {@code confirm}.
 *
 * <p>Looks are driven two ways. Directory events wake the watcher at once, but only those naming the file, or
 * Kubernetes' {@code ..data} symlink swap ({@code ..}-prefixed names): another file of the folder that changes all the
 * time (an access log) neither wakes it nor delays anything. And the file is looked at every {@link #POLL} whatever
 * the events say, a safety net for changes no event reports (a file reached through a symbolic link into another
 * folder, a network mount, an overflowed event queue). Touching the file, or writing back the content last offered,
 * offers nothing. One daemon thread; {@link #close} ends it.
 */
final class ConfigWatcher implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(ConfigWatcher.class);
    /** How often the file is looked at without an event. */
    static final Duration POLL = Duration.ofSeconds(1);

    /** Where settled content goes: the reloader. */
    interface Settled {
        /**
         * @param confirmed whether the content has stayed the same for the longer confirmation window too
         * @return false to hold it back until it is confirmed, true when it was dealt with (applied or refused)
         */
        boolean offer(ConfigFileLook look, boolean confirmed);
    }

    private final Path file;
    private final Path name;
    private final WatchService watch;
    private final long settleNanos;
    private final long confirmNanos;
    private final Settled target;
    // Only the watcher thread reads and writes these after start.
    private byte[] offered; // the digest of the content last offered (at start: the content served)
    private ConfigFileLook candidate; // a change seen, waiting to settle; null when there is none
    private long candidateSince;
    private boolean held;

    private ConfigWatcher(Path file, WatchService watch, Duration settle, Duration confirm, Settled target) {
        this.file = file;
        this.name = file.getFileName();
        this.watch = watch;
        this.settleNanos = settle.toNanos();
        this.confirmNanos = confirm.toNanos();
        this.target = target;
        try {
            this.offered = ConfigFileLook.of(file).sha256();
        } catch (IOException e) {
            this.offered = null;
        }
    }

    /**
     * Starts watching {@code file}; {@code target} is called on the watcher's thread.
     *
     * @param settle  how long the file must stay the same before its content is offered
     * @param confirm how long it must stay the same before content held back is offered again, confirmed
     */
    static ConfigWatcher start(Path file, Duration settle, Duration confirm, Settled target) throws IOException {
        Path absolute = file.toAbsolutePath();
        Path dir = absolute.getParent();
        WatchService watch = dir.getFileSystem().newWatchService();
        dir.register(watch, StandardWatchEventKinds.ENTRY_CREATE, StandardWatchEventKinds.ENTRY_MODIFY,
                StandardWatchEventKinds.ENTRY_DELETE);
        ConfigWatcher w = new ConfigWatcher(absolute, watch, settle, confirm, target);
        ConnectionExecutors.startDaemon("loomgate-config-watch", w::run);
        return w;
    }

    private void run() {
        try {
            long nextLook = System.nanoTime() + POLL.toNanos();
            while (true) {
                long wait = nextLook - System.nanoTime();
                WatchKey key = wait > 0 ? watch.poll(wait, TimeUnit.NANOSECONDS) : watch.poll();
                boolean aboutTheFile = false;
                while (key != null) {
                    aboutTheFile |= aboutTheFile(key);
                    key = watch.poll();
                }
                if (aboutTheFile || System.nanoTime() - nextLook >= 0) {
                    look();
                    nextLook = System.nanoTime() + untilNextLook();
                }
            }
        } catch (ClosedWatchServiceException | InterruptedException e) {
            log.debug("config watch of {} ended", file);
        } catch (RuntimeException e) {
            log.error("config watch of {} failed; SIGHUP and POST /reload still reload", file, e);
        }
    }

    /** Whether the key's events name the file or Kubernetes' {@code ..data} swap; consumes them either way. */
    private boolean aboutTheFile(WatchKey key) {
        boolean mine = false;
        for (WatchEvent<?> e : key.pollEvents()) {
            if (e.kind() == StandardWatchEventKinds.OVERFLOW) {
                mine = true; // events were lost: look
            } else if (e.context() instanceof Path p && (p.equals(name) || p.toString().startsWith(".."))) {
                mine = true;
            }
        }
        key.reset();
        return mine;
    }

    private void look() {
        ConfigFileLook now;
        try {
            now = ConfigFileLook.of(file);
        } catch (IOException e) {
            log.debug("config file {} cannot be read now ({}); looking again", file, e.toString());
            candidate = null; // gone mid-rename, or deleted: whatever comes next starts a new window
            return;
        }
        if (now.holds(offered)) {
            candidate = null; // touched, or written back to what was offered last
            return;
        }
        long t = System.nanoTime();
        if (!now.sameAs(candidate)) {
            if (candidate == null) {
                log.debug("config file {} changed; reloading once it has stayed the same for {} ms", file,
                        settleNanos / 1_000_000);
            }
            candidate = now;
            candidateSince = t;
            held = false;
            return;
        }
        long stable = t - candidateSince;
        if (!held && stable >= settleNanos) {
            if (target.offer(now, false)) {
                offered(now);
            } else {
                held = true;
            }
        } else if (held && stable >= confirmNanos) {
            target.offer(now, true);
            offered(now);
        }
    }

    private void offered(ConfigFileLook look) {
        offered = look.sha256();
        candidate = null;
        held = false;
    }

    /** At the latest {@link #POLL}; sooner when a change is due to have settled. */
    private long untilNextLook() {
        long poll = POLL.toNanos();
        if (candidate == null) {
            return poll;
        }
        long due = candidateSince + (held ? confirmNanos : settleNanos) - System.nanoTime();
        return Math.max(TimeUnit.MILLISECONDS.toNanos(10), Math.min(poll, due));
    }

    @Override
    public void close() {
        try {
            watch.close();
        } catch (IOException e) {
            log.debug("closing the config watch: {}", e.toString());
        }
    }
}
