package io.loomgate.threads;

import java.util.Arrays;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * One object a thread is marked with (the trace of the exchange it handles, which the log's MDC reads), found from the
 * thread alone, without a ThreadLocal on every new thread: a ThreadLocal's map, table and entry are ~136 B, made again
 * for each HTTP/2 stream's thread. A slot of a fixed table, picked by the thread's id, holds the mark (which names its
 * thread); a thread whose slot another live thread holds uses a ThreadLocal instead. Bounded both ways: the table is
 * 4,096 references (16 KB) and the ThreadLocal holds one reference per thread, never a growing cache. An empty slot
 * holds a mark of no thread, never null, so that a thread that ends on an empty slot (a connection's, which never marked
 * itself) takes the same branches as one that finds another thread's mark there: the AOT training's connections end
 * on empty slots, and with null there C2 compiled "another thread's mark" as a trap, which h2load's 200 connections
 * ending beside 2,000 live streams hit at once (docs/journal/2026-11-30-s47-w9window.md).
 *
 * <p>A mark goes when its thread unmarks itself, when a virtual thread made by {@link ConnectionExecutors} ends, or,
 * for any other thread that ended marked, when a thread that needs the slot finds its owner dead.
 */
public final class ThreadMarks {
    /** A mark: the object itself says which thread it marks. */
    public interface Mark {
        /** The thread this mark was set on. */
        Thread markedThread();
    }

    private static final int SLOT_BITS = 12;
    /** No thread's mark: its thread never runs, so it is never alive and never the caller. */
    private static final Mark EMPTY = new Empty(Thread.ofPlatform().unstarted(() -> { }));
    private static final AtomicReferenceArray<Mark> SLOTS = emptySlots();
    private static final ThreadLocal<Mark> SPILLED = new ThreadLocal<>();

    private ThreadMarks() {
    }

    private record Empty(Thread markedThread) implements Mark {
    }

    private static AtomicReferenceArray<Mark> emptySlots() {
        Mark[] slots = new Mark[1 << SLOT_BITS];
        Arrays.fill(slots, EMPTY);
        return new AtomicReferenceArray<>(slots);
    }

    /** Marks the calling thread, which must be {@code m.markedThread()}, with {@code m}. */
    public static void mark(Mark m) {
        Thread me = Thread.currentThread();
        int slot = slot(me);
        Mark held = SLOTS.get(slot);
        if (held.markedThread() == me) {
            SLOTS.setRelease(slot, m); // this thread's own, from an exchange that left no unmark (a thread that went on)
            SPILLED.remove();
            return;
        }
        if (!held.markedThread().isAlive()) { // empty, or its thread ended marked
            if (SLOTS.compareAndSet(slot, held, m)) {
                // an earlier mark of this thread may have spilled while another thread held the slot: it must not
                // come back after this one is unmarked (remove makes no ThreadLocal map where there is none)
                SPILLED.remove();
                return;
            }
        }
        SPILLED.set(m);
    }

    /** The calling thread's mark, or null. */
    public static Mark current() {
        Thread me = Thread.currentThread();
        Mark held = SLOTS.get(slot(me));
        return held.markedThread() == me ? held : SPILLED.get();
    }

    /** Removes the calling thread's mark (it goes on to other work). */
    public static void unmark() {
        freeSlot(Thread.currentThread());
        SPILLED.remove();
    }

    /** The calling thread ends: its slot, if it holds one, is freed (its ThreadLocal goes with it). */
    static void threadEnds() {
        freeSlot(Thread.currentThread());
    }

    private static boolean freeSlot(Thread me) {
        int slot = slot(me);
        Mark held = SLOTS.get(slot);
        if (held.markedThread() == me) {
            SLOTS.setRelease(slot, EMPTY); // only its own thread empties a slot it holds
            return true;
        }
        return false;
    }

    /** Fibonacci hashing of the thread id: consecutive threads land far apart (no two writers on one cache line). */
    static int slot(Thread t) {
        return (int) ((t.threadId() * 0x9E3779B97F4A7C15L) >>> (64 - SLOT_BITS));
    }
}
