package io.loomgate.http2;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The connection's stream table answers as the {@code HashMap<Integer, ...>} it replaced: through growth, removals
 * anywhere in a run of colliding slots (the backward shift), and becoming empty and filling again.
 */
class StreamTableTest {

    @Test
    void answersAsAHashMapOverRandomOpensAndCloses() {
        StreamTable<String> table = new StreamTable<>();
        Map<Integer, String> model = new HashMap<>();
        Random random = new Random(39);
        int nextId = 1;
        for (int step = 0; step < 200_000; step++) {
            int op = random.nextInt(10);
            if (op < 4 && model.size() < 300) {
                int id = nextId;
                nextId += 2; // a client's stream ids: odd, increasing
                table.put(id, "s" + id);
                model.put(id, "s" + id);
            } else if (op < 8 && !model.isEmpty()) {
                // close one of the open streams, not always the oldest
                int id = model.keySet().stream().skip(random.nextInt(model.size())).findFirst().orElseThrow();
                assertThat(table.remove(id)).isEqualTo(model.remove(id));
            } else {
                int id = 1 + 2 * random.nextInt(Math.max(1, nextId / 2 + 5));
                assertThat(table.get(id)).isEqualTo(model.get(id));
                if (!model.containsKey(id)) {
                    assertThat(table.remove(id)).isNull();
                }
            }
            assertThat(table.size()).isEqualTo(model.size());
            assertThat(table.isEmpty()).isEqualTo(model.isEmpty());
        }
        assertThat(table.values()).containsExactlyInAnyOrderElementsOf(model.values());
        for (Integer id : model.keySet()) {
            assertThat(table.get(id)).isEqualTo(model.get(id));
        }
    }

    @Test
    void emptiedTableTakesStreamsAgainAndReplacesById() {
        StreamTable<String> table = new StreamTable<>();
        assertThat(table.get(1)).isNull();
        assertThat(table.remove(1)).isNull();
        assertThat(table.values()).isEmpty();
        table.put(1, "a");
        table.put(3, "b");
        table.put(3, "c");
        assertThat(table.size()).isEqualTo(2);
        assertThat(table.get(3)).isEqualTo("c");
        assertThat(table.remove(1)).isEqualTo("a");
        assertThat(table.remove(3)).isEqualTo("c");
        assertThat(table.isEmpty()).isTrue();
        assertThat(table.get(3)).isNull();
        table.put(5, "d");
        assertThat(table.get(5)).isEqualTo("d");
        table.clear();
        assertThat(table.isEmpty()).isTrue();
        assertThat(table.get(5)).isNull();
    }

    /**
     * One stream at a time (an origin connection under light load, a client sending one request after another):
     * the table's arrays are kept when it empties, so a stream costs the table nothing (before, two arrays of 16
     * slots each time it filled again). Parking lets them go.
     */
    @Test
    void oneStreamAtATimeReusesTheFirstArraysAndAllocatesNothing() {
        StreamTable<String> table = new StreamTable<>();
        assertThat(table.capacity()).isZero();
        String stream = "s";
        int id = 1;
        for (; id < 100; id += 2) { // classes loaded, the arrays made
            table.put(id, stream);
            table.remove(id);
        }
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean)
                java.lang.management.ManagementFactory.getThreadMXBean();
        int rounds = 10_000;
        long before = mx.getCurrentThreadAllocatedBytes();
        for (int i = 0; i < rounds; i++, id += 2) {
            table.put(id, stream);
            if (table.get(id) != stream || table.remove(id) != stream) {
                throw new AssertionError("stream " + id);
            }
        }
        // under 16 B, not 0: a one-time allocation during the loop (the JIT) must not fail it; boxing is 160 B a stream
        assertThat((mx.getCurrentThreadAllocatedBytes() - before) / rounds).as("bytes per stream").isLessThan(16);
        assertThat(table.isEmpty()).isTrue();
        assertThat(table.capacity()).isEqualTo(16);
        table.release(); // the connection parks
        assertThat(table.capacity()).isZero();
        table.put(id, stream);
        table.release(); // not empty: kept
        assertThat(table.get(id)).isSameAs(stream);
        assertThat(table.capacity()).isEqualTo(16);
    }

    /**
     * Streams bounded by SETTINGS_MAX_CONCURRENT_STREAMS: however many are opened and closed over the connection's
     * life (ids growing, closes in any order, emptied now and then), the table is never larger than the smallest
     * power of two above 4/3 of the bound (16 at least); emptied, it keeps its arrays (filling again grows nothing)
     * until it is released.
     */
    @Test
    void capacityIsBoundedByTheOpenStreamsAndKeptWhenEmpty() {
        for (int maxConcurrent : new int[] {1, 10, 12, 13, 100, 250}) {
            int bound = 16;
            while (bound * 3 < maxConcurrent * 4) {
                bound *= 2;
            }
            StreamTable<Integer> table = new StreamTable<>();
            java.util.ArrayDeque<Integer> open = new java.util.ArrayDeque<>();
            Random random = new Random(maxConcurrent);
            int id = 1;
            int most = 0;
            int mostOpen = 0;
            for (int step = 0; step < 50_000; step++) {
                if (open.size() < maxConcurrent && random.nextBoolean()) {
                    table.put(id, id);
                    open.add(id);
                    id += 2;
                } else if (!open.isEmpty()) {
                    // close the oldest or the newest: both ends of the runs of slots
                    Integer gone = random.nextBoolean() ? open.pollFirst() : open.pollLast();
                    assertThat(table.remove(gone)).isEqualTo(gone);
                }
                most = Math.max(most, table.capacity());
                mostOpen = Math.max(mostOpen, open.size());
                assertThat(table.size()).isEqualTo(open.size());
            }
            assertThat(most).as("largest capacity for %d streams at most", maxConcurrent).isLessThanOrEqualTo(bound);
            for (Integer o : open) {
                assertThat(table.get(o)).isEqualTo(o);
            }
            while (!open.isEmpty()) {
                table.remove(open.poll());
            }
            assertThat(table.capacity()).as("emptied after %d streams", maxConcurrent).isEqualTo(most);
            for (int k = 0; k < mostOpen; k++, id += 2) { // filling again as far as before grows nothing
                table.put(id, id);
            }
            assertThat(table.capacity()).isEqualTo(most);
            for (int k = 0; k < mostOpen; k++) {
                table.remove(id - 2 - 2 * k);
            }
            table.release();
            assertThat(table.capacity()).isZero();
            table.put(id, id);
            assertThat(table.get(id)).isEqualTo(id);
            assertThat(table.capacity()).isEqualTo(16);
        }
    }

    @Test
    void refusesStreamZero() {
        assertThatThrownBy(() -> new StreamTable<String>().put(0, "connection"))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
