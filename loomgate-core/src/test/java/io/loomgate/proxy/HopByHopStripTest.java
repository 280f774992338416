package io.loomgate.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.http.Headers;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Test;

/** The one-pass strip removes Connection and every fixed hop-by-hop name in any case, and keeps the rest in order. */
class HopByHopStripTest {

    @Test
    void everyFixedNameInAnyCaseGoesAndTheRestStayInOrder() {
        Headers h = new Headers();
        List<String> kept = new ArrayList<>();
        int n = 0;
        for (String name : withConnection()) {
            for (String spelled : List.of(name, name.toLowerCase(Locale.ROOT), name.toUpperCase(Locale.ROOT))) {
                h.add(spelled, "v");
                // names of the same lengths that are not hop-by-hop (Te-X, Trailers, Keep-Alive2...) must stay
                String neighbour = spelled.substring(0, spelled.length() - 1) + "x";
                h.add(neighbour, "kept-" + n);
                kept.add(neighbour);
                n++;
            }
        }
        HopByHop.strip(h);
        List<String> left = new ArrayList<>();
        for (int i = 0; i < h.size(); i++) {
            left.add(h.name(i));
            assertThat(h.value(i)).isEqualTo("kept-" + i);
        }
        assertThat(left).containsExactlyElementsOf(kept);
    }

    @Test
    void aConnectionTokenIsRemovedButNotAnImmuneField() {
        Headers h = new Headers().add("Host", "h").add("connection", "X-Hop, Host").add("x-hop", "1").add("te", "t")
                .add("Via", "1.1 a");
        HopByHop.strip(h);
        assertThat(h.first("Host")).isEqualTo("h");
        assertThat(h.first("Via")).isEqualTo("1.1 a");
        assertThat(h.size()).isEqualTo(2);
    }

    private static List<String> withConnection() {
        List<String> all = new ArrayList<>(HopByHop.FIXED);
        all.add("Connection");
        return all;
    }

    /** X-Forwarded-Client-Cert is written before routing, so before this runs: a Connection token cannot undo it. */
    @Test
    void connectionCannotNameTheClientCertField() {
        Headers h = new Headers().add("Connection", "X-Forwarded-Client-Cert, X-Forwarded-For")
                .add("X-Forwarded-Client-Cert", "Hash=ab").add("X-Forwarded-For", "1.2.3.4");
        HopByHop.strip(h);
        assertThat(h.first("X-Forwarded-Client-Cert")).isEqualTo("Hash=ab");
        assertThat(h.first("X-Forwarded-For")).isEqualTo("1.2.3.4");
    }
}
