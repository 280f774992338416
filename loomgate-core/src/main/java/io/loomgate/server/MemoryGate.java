package io.loomgate.server;

import io.loomgate.threads.ConnectionExecutors;
import io.loomgate.threads.NanoClock;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Admission by memory. After every full garbage collection it notes how full the old generation still is (live data,
 * not garbage); while that is above {@link #PAUSE_ABOVE} of the old generation's maximum, listeners accept no new
 * connections, which wait in the kernel's backlog, until it is under {@link #RESUME_BELOW}. Connections already
 * accepted go on being served: what each holds is bounded (body buffers are borrowed only while bytes move), so
 * turning newcomers away is what keeps the heap from running out under a flood of slow clients. One per process,
 * since the heap is.
 *
 * <p>Why full collections only: what a young collection leaves in the old generation includes everything it promoted,
 * and with a small young generation much of that is garbage by the next moment; judged then, the gate shut on
 * promoted garbage (a 12 MiB young generation in a 128 MiB heap did, in stop 38). Only a full collection says what is
 * live.
 *
 * <p>Why it asks for full collections itself, early: Serial runs its own first full collection only when the old
 * generation cannot take the next promotion, that is when it is already full; judged then, the gate shut with no room
 * left, and the requests in flight ran the heap out (stop 39: a live set grown by four clients at once reached an
 * OutOfMemoryError before the gate shut). So the old generation carries a mark ({@link OldGeneration#markAt}, the
 * pool's usage threshold, which the JVM checks as each collection ends): when its use, garbage included, passes the
 * mark, the gate asks for one full collection ({@link #pastMark}) and judges the live set while there is still room.
 * The mark is {@link #PAUSE_ABOVE} of the maximum, or halfway from the live set the last full collection found to
 * the maximum if that is higher: a live set just under the pause mark, with young collections promoting garbage past
 * it, then costs at most twice the full collections the JVM would run anyway (it runs one each time the room above
 * the live set fills; the gate, each time half of it does), never one per young collection. The signal comes once per
 * crossing (the use must fall back under the mark, which the collection does, before it comes again). The pool's
 * collection-usage threshold is not used: it tells of collections that end above a mark, and the gate must hear of
 * every full collection, those that end low included, to reopen; the collectors' notifications tell it that.
 *
 * <p>Why a timer while shut: the gate learns only from collections, and a shut gate with no traffic left makes none
 * (nothing allocates), so it would stay shut after the connections that filled the heap have gone. While shut it
 * therefore looks every {@link #RECHECK} itself: it opens at once if the old generation, garbage included, is already
 * under the resume mark; otherwise, when no full collection has happened for a while, it asks for one
 * ({@link OldGeneration#collect()}), whose result opens or keeps the gate as any other. That while is
 * {@link #FIRST_COLLECTION_AFTER} and doubles each time a collection it asked for finds the heap still full, up to
 * {@link #LONGEST_COLLECTION_AFTER}: a heap that really stays full while idle costs one full collection a minute,
 * and under load the JVM's own full collections come sooner, so the gate asks for none. Counting closed connections
 * instead would guess at what they freed; a collection is the one measure of what is live.
 *
 * <p>Under -XX:+DisableExplicitGC the JVM ignores what the gate asks for: it then judges after the JVM's own full
 * collections only (late, as above) and reopens only when garbage included the old generation is under the resume
 * mark.
 *
 * <p>Thread-safety: {@link #afterFullCollection} runs on the JVM's notification thread (or the caller's, in tests),
 * {@link #pastMark} on a virtual thread started for each signal (a full collection takes tens of milliseconds, which
 * the notification thread owes other listeners), the recheck on its own virtual thread that exists only while the
 * gate is shut; they share volatile fields, and accept loops only read {@link #isFull()}.
 */
final class MemoryGate {
    private static final Logger log = LoggerFactory.getLogger(MemoryGate.class);
    /** Old-generation share, live after a full collection, above which accepting pauses. */
    static final double PAUSE_ABOVE = 0.85;
    /** Old-generation share below which accepting resumes (lower than the pause mark, so the gate does not flap). */
    static final double RESUME_BELOW = 0.70;
    /** How often a shut gate looks at the old generation itself. */
    static final Duration RECHECK = Duration.ofSeconds(1);
    /** How long a shut gate waits for a full collection before it asks for one. */
    static final Duration FIRST_COLLECTION_AFTER = Duration.ofSeconds(2);
    /** The longest wait between collections it asks for while the heap stays full. */
    static final Duration LONGEST_COLLECTION_AFTER = Duration.ofSeconds(64);

    static final MemoryGate PROCESS = forThisJvm();

    private final OldGeneration old;
    private final NanoClock clock;
    private final long recheckNanos;
    private final long firstCollectionAfterNanos;
    private final long longestCollectionAfterNanos;
    private final AtomicBoolean rechecking = new AtomicBoolean();
    private volatile boolean full;
    /** The old generation's use, garbage included, past which the gate asks for a full collection while open. */
    private volatile long mark;
    /** Whether the gate asked for the next full collection while shut (a notification clears it). */
    private volatile boolean askedForCollection;
    private volatile long lastFullCollection;
    /** How long, while shut, the gate waits for a full collection before it asks for one. */
    private volatile long collectionAfterNanos;

    MemoryGate(OldGeneration old, NanoClock clock, Duration recheck, Duration firstCollectionAfter,
               Duration longestCollectionAfter) {
        this.old = old;
        this.clock = clock;
        this.recheckNanos = recheck.toNanos();
        this.firstCollectionAfterNanos = firstCollectionAfter.toNanos();
        this.longestCollectionAfterNanos = longestCollectionAfter.toNanos();
        this.collectionAfterNanos = firstCollectionAfterNanos;
        this.lastFullCollection = clock.nanoTime();
        markAbove(0);
    }

    private static MemoryGate forThisJvm() {
        OldGeneration.JvmOldGeneration old = OldGeneration.ofThisJvm();
        MemoryGate gate = new MemoryGate(old, NanoClock.SYSTEM, RECHECK, FIRST_COLLECTION_AFTER,
                LONGEST_COLLECTION_AFTER);
        old.onFullCollection(gate::afterFullCollection);
        old.onPastMark(() -> ConnectionExecutors.startVirtual("memory-gate-judge", gate::pastMark));
        return gate;
    }

    /** Whether new connections must wait now. */
    boolean isFull() {
        return full;
    }

    /** Updates the gate from the old generation's use just after a full collection; returns whether it is full. */
    boolean afterFullCollection(long oldUsedAfterGc) {
        lastFullCollection = clock.nanoTime();
        boolean asked = askedForCollection;
        askedForCollection = false;
        double share = (double) oldUsedAfterGc / old.max();
        markAbove(oldUsedAfterGc);
        if (!full && share > PAUSE_ABOVE) {
            full = true;
            log.warn("old generation {}% full after a full garbage collection: new connections wait until it is"
                    + " below {}%", Math.round(share * 100), Math.round(RESUME_BELOW * 100));
            startRecheck();
        } else if (full && share < RESUME_BELOW) {
            open(share);
        } else if (full && asked) {
            // still full after a collection it asked for: the next one later (a heap full of live data stays so)
            collectionAfterNanos = Math.min(collectionAfterNanos * 2, longestCollectionAfterNanos);
        }
        return full;
    }

    /**
     * The old generation passed the mark: unless shut (then the recheck decides when to collect) or already under the
     * mark again (the JVM collected in between), asks for one full collection, whose notification judges it.
     */
    void pastMark() {
        if (full || old.used() < mark) {
            return;
        }
        log.debug("old generation past {} MiB: asking for a full collection to judge what is live", mark >> 20);
        old.collect();
    }

    /** Moves the mark to the pause share, or halfway from {@code live} to the maximum if that is higher. */
    private void markAbove(long live) {
        long max = old.max();
        mark = Math.min(max, Math.max((long) (max * PAUSE_ABOVE), live + (max - live) / 2));
        old.markAt(mark);
    }

    /** Parks while the gate is full, until it opens or {@code stop} says to give up. */
    void awaitRoom(BooleanSupplier stop) {
        while (full && !stop.getAsBoolean()) {
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
        }
    }

    private void open(double share) {
        full = false;
        collectionAfterNanos = firstCollectionAfterNanos;
        log.info("old generation {}% full: accepting connections again", Math.round(share * 100));
    }

    /** Starts the recheck thread unless one runs; it ends when the gate opens. */
    private void startRecheck() {
        if (rechecking.compareAndSet(false, true)) {
            ConnectionExecutors.startVirtual("memory-gate-recheck", this::recheckWhileFull);
        }
    }

    private void recheckWhileFull() {
        try {
            while (full) {
                LockSupport.parkNanos(recheckNanos);
                recheck();
            }
        } finally {
            rechecking.set(false);
        }
        if (full) { // shut again between the loop's last look and the flag's reset, with no thread started for it
            startRecheck();
        }
    }

    /** One look while shut: open if even garbage included the old generation is low, else maybe ask to collect. */
    void recheck() {
        if (!full) {
            return;
        }
        double share = (double) old.used() / old.max();
        if (share < RESUME_BELOW) {
            open(share);
        } else if (clock.nanoTime() - lastFullCollection >= collectionAfterNanos) {
            log.debug("memory gate shut and no full collection for {} ms: asking for one",
                    TimeUnit.NANOSECONDS.toMillis(collectionAfterNanos));
            lastFullCollection = clock.nanoTime(); // not again before the wait, if the JVM declines (DisableExplicitGC)
            askedForCollection = true;
            old.collect(); // its notification calls afterFullCollection
        }
    }
}
