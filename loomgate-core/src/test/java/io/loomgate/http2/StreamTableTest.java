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

    @Test
    void refusesStreamZero() {
        assertThatThrownBy(() -> new StreamTable<String>().put(0, "connection"))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
