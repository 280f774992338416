package io.loomgate.cli;

import io.loomgate.threads.ConnectionExecutors;
import java.io.IOException;
import java.nio.file.ClosedWatchServiceException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Watches the configuration file and calls back when its content changes. It watches the file's directory, not the
 * file: editors save by renaming a new file over the old one, and a Kubernetes ConfigMap volume updates by swapping
 * the {@code ..data} symlink the file points through; both show up as events in the directory. A burst of events
 * is let settle ({@link #SETTLE_MILLIS} without a new one) and the content compared by digest, so a save reloads
 * once and a touch not at all. One daemon thread; {@link #close} ends it.
 */
final class ConfigWatcher implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(ConfigWatcher.class);
    static final long SETTLE_MILLIS = 150;

    private final Path file;
    private final WatchService watch;
    private final Runnable onChange;
    private byte[] digest; // only the watcher thread reads and writes it after start

    private ConfigWatcher(Path file, WatchService watch, Runnable onChange) {
        this.file = file;
        this.watch = watch;
        this.onChange = onChange;
        this.digest = digest(file);
    }

    /** Starts watching {@code file}; {@code onChange} runs on the watcher's thread. */
    static ConfigWatcher start(Path file, Runnable onChange) throws IOException {
        Path absolute = file.toAbsolutePath();
        Path dir = absolute.getParent();
        WatchService watch = dir.getFileSystem().newWatchService();
        dir.register(watch, StandardWatchEventKinds.ENTRY_CREATE, StandardWatchEventKinds.ENTRY_MODIFY,
                StandardWatchEventKinds.ENTRY_DELETE);
        ConfigWatcher w = new ConfigWatcher(absolute, watch, onChange);
        ConnectionExecutors.startDaemon("loomgate-config-watch", w::run);
        return w;
    }

    private void run() {
        try {
            while (true) {
                consume(watch.take());
                WatchKey more;
                while ((more = watch.poll(SETTLE_MILLIS, TimeUnit.MILLISECONDS)) != null) {
                    consume(more);
                }
                byte[] now = digest(file);
                if (!Arrays.equals(now, digest)) {
                    digest = now;
                    onChange.run();
                }
            }
        } catch (ClosedWatchServiceException | InterruptedException e) {
            log.debug("config watch of {} ended", file);
        } catch (RuntimeException e) {
            log.error("config watch of {} failed; SIGHUP and POST /reload still reload", file, e);
        }
    }

    private static void consume(WatchKey key) {
        key.pollEvents();
        key.reset();
    }

    /** The SHA-256 of the file's bytes, or null when it cannot be read now (mid-rename, deleted). */
    private static byte[] digest(Path file) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(file));
        } catch (IOException e) {
            return null;
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is in every JDK", e);
        }
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
