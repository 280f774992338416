package io.loomgate.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The pool of direct buffers for bulk pieces never allocates past its bound, and reuses what comes back. */
class DirectBuffersTest {

    @Test
    void noMoreThanTheBoundIsEverAllocatedAndAnExhaustedPoolSaysSo() {
        DirectBuffers pool = new DirectBuffers(3, 1024);
        List<ByteBuffer> taken = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            ByteBuffer b = pool.take();
            assertThat(b).isNotNull();
            assertThat(b.isDirect()).isTrue();
            assertThat(b.capacity()).isEqualTo(1024);
            taken.add(b);
        }
        assertThat(pool.take()).as("all in use: the caller goes through the heap").isNull();
        assertThat(pool.allocated()).isEqualTo(3);

        ByteBuffer back = taken.removeFirst();
        back.put((byte) 1).put((byte) 2);
        pool.give(back);
        ByteBuffer again = pool.take();
        assertThat(again).isSameAs(back);
        assertThat(again.position()).as("cleared when given back").isZero();
        assertThat(again.remaining()).isEqualTo(1024);
        assertThat(pool.allocated()).isEqualTo(3);
    }

    @Test
    void manyRelaysTakingAndGivingAtOnceStayWithinTheBound() throws Exception {
        DirectBuffers pool = new DirectBuffers(4, 4096);
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < 32; t++) {
            threads.add(Thread.ofVirtual().start(() -> {
                for (int i = 0; i < 2_000; i++) {
                    ByteBuffer b = pool.take();
                    if (b != null) {
                        b.putInt(i);
                        Thread.yield();
                        pool.give(b);
                    }
                }
            }));
        }
        for (Thread t : threads) {
            t.join();
        }
        assertThat(pool.allocated()).isLessThanOrEqualTo(4);
        for (int i = 0; i < pool.allocated(); i++) {
            assertThat(pool.take()).isNotNull();
        }
    }
}
