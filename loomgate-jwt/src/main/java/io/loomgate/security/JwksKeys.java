package io.loomgate.security;

import com.nimbusds.jose.JWSAlgorithm;
import io.loomgate.threads.ConnectionExecutors;
import io.loomgate.tls.ClientTrust;
import io.loomgate.tls.TlsMaterialException;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import javax.net.ssl.HttpsURLConnection;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A JWK set from a URL or a file, served from memory and refreshed in the background.
 *
 * <p>Requests only read the current {@link KeySet} (a volatile field; no lock). A refresh runs on its own virtual
 * thread: every {@code refresh} interval (started by the first request after it is due), at once on a cold start,
 * and when a token names a {@code kid} the set does not have (a key rotation), at most once per
 * {@link #UNKNOWN_KID_COOL_DOWN}, so tokens with made-up kids cannot make the gateway hammer the identity provider.
 * One fetch at a time ({@link #inFlight}); requests wait for it only on a cold start or an unknown kid, and never
 * longer than {@code wait}. A failed fetch keeps the keys fetched before, is logged once per distinct error, and is
 * retried after {@link #RETRY_AFTER_FAILURE}.
 */
final class JwksKeys implements KeySource {
    private static final Logger log = LoggerFactory.getLogger(JwksKeys.class);
    static final Duration UNKNOWN_KID_COOL_DOWN = Duration.ofSeconds(5);
    static final Duration RETRY_AFTER_FAILURE = Duration.ofSeconds(5);
    /** A JWKS is a few KiB; anything this large is not one. */
    static final int MAX_DOCUMENT_BYTES = 1024 * 1024;

    /** Reads the document once; throws with a message that says what went wrong. */
    interface Fetch {
        String fetch() throws IOException;
    }

    private final String where;
    /** {@link #where} as a metric label: no user info or query, which may hold a credential. */
    private final String label;
    private final JwksListener listener;
    private final Fetch fetch;
    private final Set<JWSAlgorithm> algorithms;
    private final long refreshNanos;
    private final long retryNanos;
    private final Duration wait;
    private final AtomicReference<CompletableFuture<KeySet>> inFlight = new AtomicReference<>();
    private volatile KeySet keys;
    private volatile long nextRefreshNanos;
    private volatile long nextUnknownKidFetchNanos;
    private volatile String lastError;

    private JwksKeys(String where, String label, JwksListener listener, Fetch fetch, Set<JWSAlgorithm> algorithms,
                     Duration refresh, Duration wait) {
        this.where = where;
        this.label = label;
        this.listener = listener;
        this.fetch = fetch;
        this.algorithms = Set.copyOf(algorithms);
        this.refreshNanos = refresh.toNanos();
        this.retryNanos = Math.min(refresh.toNanos(), RETRY_AFTER_FAILURE.toNanos());
        this.wait = wait;
        long now = System.nanoTime();
        this.nextRefreshNanos = now;
        this.nextUnknownKidFetchNanos = now;
    }

    /**
     * Keys from a URL: the first fetch starts now, in the background; requests wait for it at most {@code wait}. An
     * {@code https://} URL is checked against the CAs in {@code trust} and the JDK's (null: the JDK's only). Each
     * fetch's outcome goes to {@code listener}.
     */
    static JwksKeys fromUri(URI uri, Path trust, Set<JWSAlgorithm> algorithms, Duration refresh, Duration wait,
                            JwksListener listener) {
        JwksKeys k = new JwksKeys(uri.toString(), label(uri), listener, () -> httpGet(uri, trust, wait), algorithms,
                refresh, wait);
        k.refresh();
        return k;
    }

    /**
     * Keys from a file, read now so that a missing or broken file is a configuration error, then re-read every
     * {@code refresh} (a changed file is picked up; a file broken later keeps the keys read before, and each re-read
     * goes to {@code listener}).
     */
    static JwksKeys fromFile(Path file, Set<JWSAlgorithm> algorithms, Duration refresh, JwksListener listener) {
        JwksKeys k = new JwksKeys(file.toString(), file.toString(), listener,
                () -> Files.readString(file, StandardCharsets.UTF_8), algorithms, refresh, Duration.ofSeconds(1));
        try {
            k.keys = KeySet.parseJwks(k.fetch.fetch(), k.algorithms);
        } catch (IOException e) {
            throw new IllegalArgumentException("jwks-file: cannot read " + file + ": " + e);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("jwks-file " + file + ": " + e.getMessage());
        }
        k.nextRefreshNanos = System.nanoTime() + k.refreshNanos;
        return k;
    }

    /** A URL as a metric label: scheme, host, port and path; user info and query may hold a credential. */
    static String label(URI uri) {
        return uri.getScheme() + "://" + uri.getHost() + (uri.getPort() < 0 ? "" : ":" + uri.getPort())
                + (uri.getRawPath() == null ? "" : uri.getRawPath());
    }

    @Override
    public KeySet current() {
        KeySet k = keys;
        if (System.nanoTime() - nextRefreshNanos >= 0) {
            refresh();
        }
        return k;
    }

    @Override
    public KeySet keysFor(String kid) throws KeysUnavailable {
        KeySet k = current();
        if (k != null && k.knows(kid)) {
            return k;
        }
        CompletableFuture<KeySet> fetching;
        if (k == null) {
            fetching = inFlight.get(); // current() started one if a retry was due
            if (fetching == null) {
                throw new KeysUnavailable(unavailable());
            }
        } else {
            long now = System.nanoTime();
            if (now - nextUnknownKidFetchNanos < 0) {
                return k; // cooling down: the token is checked against what we have (and fails)
            }
            // Race window: two requests may both pass the check above; both then share the one fetch refresh() allows.
            nextUnknownKidFetchNanos = now + UNKNOWN_KID_COOL_DOWN.toNanos();
            fetching = refresh();
        }
        KeySet fetched = await(fetching);
        if (fetched != null) {
            return fetched;
        }
        if (k != null) {
            return k;
        }
        throw new KeysUnavailable(unavailable());
    }

    private String unavailable() {
        String e = lastError;
        return "no signing keys from " + where + " yet" + (e == null ? "" : " (" + e + ")");
    }

    private KeySet await(CompletableFuture<KeySet> fetching) {
        try {
            return fetching.get(wait.toNanos(), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        } catch (ExecutionException e) {
            return null; // load() always completes normally; kept for the compiler
        }
    }

    /** Starts a fetch unless one is running; returns the running one. */
    private CompletableFuture<KeySet> refresh() {
        CompletableFuture<KeySet> running = inFlight.get();
        if (running != null) {
            return running;
        }
        CompletableFuture<KeySet> mine = new CompletableFuture<>();
        if (!inFlight.compareAndSet(null, mine)) {
            running = inFlight.get();
            return running != null ? running : CompletableFuture.completedFuture(keys);
        }
        nextRefreshNanos = System.nanoTime() + refreshNanos; // not again until this one is done and due
        ConnectionExecutors.startVirtual("jwks-refresh", () -> load(mine));
        return mine;
    }

    private void load(CompletableFuture<KeySet> done) {
        KeySet result = null;
        try {
            String text = fetch.fetch();
            KeySet before = keys;
            // An unchanged document keeps its KeySet, so tokens verified against it stay cached.
            result = before != null && before.text().equals(text) ? before : KeySet.parseJwks(text, algorithms);
            keys = result;
            nextRefreshNanos = System.nanoTime() + refreshNanos;
            if (lastError != null) {
                log.info("JWKS {}: fetched again after '{}'", where, lastError);
                lastError = null;
            }
            listener.fetched(label, JwksListener.Outcome.FETCHED);
        } catch (IOException | IllegalArgumentException | java.io.UncheckedIOException e) {
            String problem = e.getMessage() == null ? e.toString() : e.getMessage();
            if (!problem.equals(lastError)) {
                log.warn("JWKS {}: {}; {}", where, problem, keys == null ? "no keys yet: tokens get 503"
                        : "keeping the keys fetched before");
            }
            lastError = problem;
            nextRefreshNanos = System.nanoTime() + retryNanos;
            listener.fetched(label, JwksListener.Outcome.FAILED);
        } finally {
            inFlight.set(null);
            done.complete(result);
        }
    }

    /**
     * One GET with connect and read timeouts (each read; a document is at most {@link #MAX_DOCUMENT_BYTES}). Runs on
     * the refresh thread only. The connection is closed afterwards rather than kept, so no keep-alive timer thread
     * appears. The trust file is read on every fetch (every {@code jwks-refresh} at most), so a CA rotated in it is
     * used from the next fetch on, as {@code upstream.ssl}'s are on a reload.
     */
    private static String httpGet(URI uri, Path trust, Duration timeout) throws IOException {
        HttpURLConnection c = (HttpURLConnection) uri.toURL().openConnection();
        if (trust != null && c instanceof HttpsURLConnection https) {
            try {
                https.setSSLSocketFactory(ClientTrust.socketFactory(trust));
            } catch (TlsMaterialException e) {
                throw new IOException("GET " + uri + ": trust " + e.getMessage(), e);
            }
        }
        int millis = (int) Math.max(1, Math.min(Integer.MAX_VALUE, timeout.toMillis()));
        c.setConnectTimeout(millis);
        c.setReadTimeout(millis);
        c.setUseCaches(false);
        c.setRequestProperty("Accept", "application/jwk-set+json, application/json");
        try {
            int status = c.getResponseCode();
            if (status != 200) {
                throw new IOException("GET " + uri + " answered " + status + ", expected 200");
            }
            try (InputStream in = c.getInputStream()) {
                ByteArrayOutputStream out = new ByteArrayOutputStream();
                byte[] buf = new byte[8192];
                int n;
                while ((n = in.read(buf)) >= 0) {
                    out.write(buf, 0, n);
                    if (out.size() > MAX_DOCUMENT_BYTES) {
                        throw new IOException("GET " + uri + ": document larger than " + MAX_DOCUMENT_BYTES
                                + " bytes");
                    }
                }
                return out.toString(StandardCharsets.UTF_8);
            }
        } catch (IOException e) {
            throw e.getMessage() != null && e.getMessage().contains(uri.toString()) ? e
                    : new IOException("GET " + uri + ": " + e, e);
        } finally {
            c.disconnect();
        }
    }
}
