package io.loomgate.threads;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Each thread finds its own mark and no other's, with more marked threads alive at once than the table has slots (so
 * many share a slot and some spill to the ThreadLocal); a mark goes when its thread unmarks or ends.
 */
class ThreadMarksTest {
    record Named(Thread markedThread, int n) implements ThreadMarks.Mark {
    }

    @Test
    void everyThreadSeesItsOwnMarkWhileManyShareSlots() throws Exception {
        int threads = 10_000; // more than the 4,096 slots
        CountDownLatch allMarked = new CountDownLatch(threads);
        CountDownLatch check = new CountDownLatch(1);
        ConcurrentLinkedQueue<String> wrong = new ConcurrentLinkedQueue<>();
        List<Thread> started = new ArrayList<>();
        for (int i = 0; i < threads; i++) {
            int n = i;
            started.add(ConnectionExecutors.startVirtual("mark-" + i, () -> {
                assertNoMark(wrong, "before");
                ThreadMarks.mark(new Named(Thread.currentThread(), n));
                allMarked.countDown();
                try {
                    check.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                if (!(ThreadMarks.current() instanceof Named m) || m.n() != n) {
                    wrong.add(n + " saw " + ThreadMarks.current());
                }
                ThreadMarks.unmark();
                assertNoMark(wrong, "after unmark");
                ThreadMarks.mark(new Named(Thread.currentThread(), n)); // left for the thread's end to free
            }));
        }
        assertThat(allMarked.await(60, TimeUnit.SECONDS)).isTrue();
        check.countDown();
        for (Thread t : started) {
            t.join(60_000);
        }
        assertThat(wrong).isEmpty();
        // every slot was freed as its thread ended: a new thread takes one and none sees a dead thread's mark
        Thread probe = ConnectionExecutors.startVirtual("probe", () -> assertNoMark(wrong, "new thread"));
        probe.join(60_000);
        assertThat(wrong).isEmpty();
    }

    @Test
    void aPlatformThreadThatEndedMarkedGivesItsSlotUp() throws Exception {
        Thread t = Thread.ofPlatform().start(() -> ThreadMarks.mark(new Named(Thread.currentThread(), 1)));
        t.join();
        // a thread that never unmarked is dead: whoever needs the slot later takes it; nobody ever sees its mark
        assertThat(ThreadMarks.current()).isNull();
        ThreadMarks.mark(new Named(Thread.currentThread(), 2));
        assertThat(ThreadMarks.current()).isEqualTo(new Named(Thread.currentThread(), 2));
        ThreadMarks.unmark();
        assertThat(ThreadMarks.current()).isNull();
    }

    @Test
    void aMarkThatSpilledDoesNotComeBackAfterTheThreadLaterTookItsSlot() throws Exception {
        CountDownLatch holderMarked = new CountDownLatch(1);
        CountDownLatch holderGo = new CountDownLatch(1);
        CountDownLatch holderUnmarked = new CountDownLatch(1);
        Thread holder = Thread.ofPlatform().start(() -> {
            ThreadMarks.mark(new Named(Thread.currentThread(), 1));
            holderMarked.countDown();
            try {
                holderGo.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            ThreadMarks.unmark();
            holderUnmarked.countDown();
        });
        assertThat(holderMarked.await(10, TimeUnit.SECONDS)).isTrue();
        ConcurrentLinkedQueue<String> wrong = new ConcurrentLinkedQueue<>();
        Runnable sharer = () -> {
            ThreadMarks.mark(new Named(Thread.currentThread(), 2)); // the slot is the live holder's: spills
            holderGo.countDown();
            try {
                holderUnmarked.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            ThreadMarks.mark(new Named(Thread.currentThread(), 3)); // the slot is free now: taken
            if (!(ThreadMarks.current() instanceof Named m) || m.n() != 3) {
                wrong.add("marked 3, saw " + ThreadMarks.current());
            }
            ThreadMarks.unmark();
            if (ThreadMarks.current() != null) {
                wrong.add("after unmark, saw " + ThreadMarks.current());
            }
        };
        Thread sameSlot = null;
        for (int i = 0; i < 1_000_000 && sameSlot == null; i++) { // ~4,096 tries expected: ids hash over the slots
            Thread t = Thread.ofPlatform().unstarted(sharer);
            if (ThreadMarks.slot(t) == ThreadMarks.slot(holder)) {
                sameSlot = t;
            }
        }
        assertThat(sameSlot).as("a thread whose id hashes to the holder's slot").isNotNull();
        sameSlot.start();
        sameSlot.join(10_000);
        holder.join(10_000);
        assertThat(wrong).isEmpty();
    }

    private static void assertNoMark(ConcurrentLinkedQueue<String> wrong, String when) {
        if (ThreadMarks.current() != null) {
            wrong.add(Thread.currentThread().getName() + " " + when + ": " + ThreadMarks.current());
        }
    }
}
