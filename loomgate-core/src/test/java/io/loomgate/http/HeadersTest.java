package io.loomgate.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Headers with no room made ahead (the empty trailers of every body without any) behave as any other; every lookup
 * answers as a compare of every name with {@link String#equalsIgnoreCase} would, whatever the edits before it.
 */
class HeadersTest {
    /**
     * Names that share a length but differ, that differ only in case, that are equal ignoring case only through a
     * non-ASCII letter (the Kelvin sign is 'k' ignoring case, the long s 's'), and longer than 255 characters.
     */
    private static final String[] NAMES = {"Host", "host", "HOST", "Date", "date", "Via", "via", "TE", "te",
            "Connection", "connection", "user-agent", "Keep-Alive", "Content-Length", "content-length",
            "Content-Type", "X-Request-Id", "x-forwarded-for", "X-Forwarded-For", "traceparent", "tracestate",
            "\u212Aeep-alive", "keep-alive", "Keep-\u017Flive", "x".repeat(300), "X".repeat(300), "y".repeat(300),
            "x".repeat(255), "X".repeat(255), "x".repeat(256), ""};

    @Test
    void everyLookupAnswersAsACaseBlindCompareOfEveryNameThroughAnyEdits() {
        Random random = new Random(39);
        for (int round = 0; round < 20; round++) {
            Headers h = new Headers(random.nextInt(3) * 4);
            List<String[]> model = new ArrayList<>();
            for (int step = 0; step < 60; step++) {
                String name = NAMES[random.nextInt(NAMES.length)];
                String value = "v" + step;
                switch (random.nextInt(6)) {
                    case 0, 1 -> {
                        h.add(name, value);
                        model.add(new String[] {name, value});
                    }
                    case 2 -> {
                        h.set(name, value);
                        int first = indexIn(model, name, 0);
                        if (first < 0) {
                            model.add(new String[] {name, value});
                        } else {
                            model.get(first)[1] = value;
                            model.subList(first + 1, model.size()).removeIf(f -> f[0].equalsIgnoreCase(name));
                        }
                    }
                    case 3 -> {
                        boolean had = indexIn(model, name, 0) >= 0;
                        assertThat(h.remove(name)).isEqualTo(had);
                        model.removeIf(f -> f[0].equalsIgnoreCase(name));
                    }
                    case 4 -> {
                        if (!model.isEmpty()) {
                            int i = random.nextInt(model.size());
                            h.removeAt(i);
                            model.remove(i);
                        }
                    }
                    default -> {
                        h = h.copy();
                    }
                }
                assertSameAs(model, h, random.nextInt(model.size() + 1));
            }
        }
    }

    private static void assertSameAs(List<String[]> model, Headers h, int from) {
        assertThat(h.size()).isEqualTo(model.size());
        for (int i = 0; i < model.size(); i++) {
            assertThat(h.name(i)).isEqualTo(model.get(i)[0]);
            assertThat(h.value(i)).isEqualTo(model.get(i)[1]);
        }
        for (String name : NAMES) {
            List<String> all = new ArrayList<>();
            for (String[] f : model) {
                if (f[0].equalsIgnoreCase(name)) {
                    all.add(f[1]);
                }
            }
            assertThat(h.all(name)).as(name).isEqualTo(all);
            assertThat(h.count(name)).as(name).isEqualTo(all.size());
            assertThat(h.contains(name)).as(name).isEqualTo(!all.isEmpty());
            assertThat(h.first(name)).as(name).isEqualTo(all.isEmpty() ? null : all.get(0));
            assertThat(h.indexOf(name, 0)).as(name).isEqualTo(indexIn(model, name, 0));
            assertThat(h.indexOf(name, from)).as(name + " from " + from).isEqualTo(indexIn(model, name, from));
            assertThat(h.hasToken(name, "v1")).as(name).isEqualTo(all.contains("v1"));
        }
    }

    private static int indexIn(List<String[]> model, String name, int from) {
        for (int i = from; i < model.size(); i++) {
            if (model.get(i)[0].equalsIgnoreCase(name)) {
                return i;
            }
        }
        return -1;
    }

    @Test
    void headersMadeWithNoRoomAreEmptyAndGrowAsFieldsComeInOrder() {
        Headers h = new Headers(0);
        assertThat(h.isEmpty()).isTrue();
        assertThat(h.first("grpc-status")).isNull();
        assertThat(h.remove("x")).isFalse();
        assertThat(h.all("x")).isEmpty();
        for (int i = 0; i < 9; i++) {
            h.add("x-" + i, "v" + i);
        }
        h.set("X-0", "first").add("x-1", "again");
        assertThat(h.size()).isEqualTo(10);
        assertThat(h.name(0)).isEqualTo("x-0");
        assertThat(h.value(0)).isEqualTo("first");
        assertThat(h.all("X-1")).containsExactly("v1", "again");
        assertThat(h.copy().first("x-8")).isEqualTo("v8");
    }

    @Test
    void aSetOnHeadersWithNoRoomAddsTheField() {
        Headers h = new Headers(0);
        h.set("Via", "1.1 loomgate");
        assertThat(h.size()).isEqualTo(1);
        assertThat(h.first("via")).isEqualTo("1.1 loomgate");
    }
}
