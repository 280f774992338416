package io.loomgate.upstream;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.ArrayDeque;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The line of acquirers waiting for a connection or a slot, served first come, first served. Whoever frees a
 * connection ({@link #handItem}) or a slot ({@link #handSlot}) gives it to the oldest waiter directly, so a newcomer
 * can never take what a waiter was woken for: under overload (all connections busy) nobody starves past its deadline
 * while later requests go through. A dial the waiters depend on that fails answers them all with its failure
 * ({@link #failAll}) instead of handing its slot to the next to dial the same endpoint again.
 *
 * <p>Not thread-safe on its own: every method is called with the owner's lock held (the lock the queue was made
 * with, whose conditions the waiters park on).
 *
 * @param <T> what is handed over (a pooled connection)
 */
final class WaiterQueue<T> {

    /** One acquirer in line, and what it was handed. */
    static final class Ticket<T> {
        private final Condition turn;
        private T item;
        private boolean slot;
        private IOException failure;

        private Ticket(Condition turn) {
            this.turn = turn;
        }

        /** What it was handed, or null. */
        T item() {
            return item;
        }

        /** Whether it was handed a reserved slot (to dial into). */
        boolean hasSlot() {
            return slot;
        }

        /**
         * The failure of the dial this ticket waited on, made for this waiter (its own stack, the dial's failure as
         * cause), or null.
         */
        IOException failure() {
            return failure;
        }

        boolean wasServed() {
            return item != null || slot || failure != null;
        }
    }

    private final ReentrantLock lock;
    private final ArrayDeque<Ticket<T>> line = new ArrayDeque<>();

    WaiterQueue(ReentrantLock lock) {
        this.lock = lock;
    }

    boolean isEmpty() {
        return line.isEmpty();
    }

    int size() {
        return line.size();
    }

    /** Joins the end of the line. */
    Ticket<T> join() {
        Ticket<T> t = new Ticket<>(lock.newCondition());
        line.addLast(t);
        return t;
    }

    /**
     * Parks (releasing the lock) until this ticket is served, {@link #wakeAll} is called, or {@code nanos} pass;
     * spurious wake-ups are possible, so the caller loops on its own conditions.
     */
    void await(Ticket<T> ticket, long nanos) throws InterruptedException {
        if (!ticket.wasServed()) {
            ticket.turn.awaitNanos(nanos);
        }
    }

    /**
     * One wait in line, for the caller's loop: parks as {@link #await} does, until {@code deadlineNanos} at the
     * latest; false, having left the line, once the deadline has passed. Interrupted, it leaves the line, passes on
     * whatever it was handed meanwhile ({@code giveBack}, so the next in line gets it) and throws.
     *
     * @param waitingFor what is waited for, for the exception: "a connection to ..."
     */
    boolean awaitUntil(Ticket<T> ticket, long deadlineNanos, Consumer<Ticket<T>> giveBack, String waitingFor)
            throws InterruptedIOException {
        long left = deadlineNanos - System.nanoTime();
        if (left <= 0) {
            leave(ticket);
            return false;
        }
        try {
            await(ticket, left);
        } catch (InterruptedException e) {
            leave(ticket);
            giveBack.accept(ticket);
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while waiting for " + waitingFor);
        }
        return true;
    }

    /** Leaves the line without being served (deadline, interrupt, closed pool); a no-op once served. */
    void leave(Ticket<T> ticket) {
        line.remove(ticket);
    }

    /** Hands {@code item} to the oldest waiter; false if nobody waits. */
    boolean handItem(T item) {
        return serveOldest(item, false);
    }

    /** Hands a reserved slot to the oldest waiter; false if nobody waits. */
    boolean handSlot() {
        return serveOldest(null, true);
    }

    private boolean serveOldest(T item, boolean slot) {
        Ticket<T> t = line.pollFirst();
        if (t == null) {
            return false;
        }
        t.item = item;
        t.slot = slot;
        t.turn.signal();
        return true;
    }

    /**
     * Answers every waiter in line with a failure of its own ({@code failureFor} is called once per waiter, lock
     * held) and empties the line: the dial they waited on failed, and nothing else could serve them. Each leaves
     * with the dial's failure rather than being handed the slot to dial the same endpoint again after it.
     *
     * @return how many waiters were answered
     */
    int failAll(Supplier<IOException> failureFor) {
        int n = 0;
        for (Ticket<T> t = line.pollFirst(); t != null; t = line.pollFirst()) {
            t.failure = failureFor.get();
            t.turn.signal();
            n++;
        }
        return n;
    }

    /** Takes back the item a ticket that gave up had been handed (null if none), so the caller can pass it on. */
    T reclaimItem(Ticket<T> ticket) {
        T item = ticket.item;
        ticket.item = null;
        return item;
    }

    /** Takes back the slot a ticket that gave up had been handed; true if it had one to pass on. */
    boolean reclaimSlot(Ticket<T> ticket) {
        boolean had = ticket.slot;
        ticket.slot = false;
        return had;
    }

    /** Wakes every waiter (the pool closed): each sees why on its own and leaves. */
    void wakeAll() {
        for (Ticket<T> t : line) {
            t.turn.signal();
        }
    }
}
