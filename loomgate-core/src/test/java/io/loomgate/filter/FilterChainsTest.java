package io.loomgate.filter;

import io.loomgate.testkit.TestExchange;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.loomgate.http.ResponseHead;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The chain contract of ARCHITECTURE rule 4: each filter proceeds exactly once or replies locally. */
class FilterChainsTest {

    /** Records "name>" before proceeding and "<name" after. */
    private record Recording(String name, List<String> log) implements GatewayFilter {
        @Override
        public void filter(FilterExchange exchange, FilterChain chain) throws IOException {
            log.add(name + ">");
            chain.proceed(exchange);
            log.add("<" + name);
        }
    }

    private static final class ProceedsTwice implements GatewayFilter {
        @Override
        public void filter(FilterExchange exchange, FilterChain chain) throws IOException {
            chain.proceed(exchange);
            chain.proceed(exchange);
        }
    }

    private static final class ForgetsToProceed implements GatewayFilter {
        @Override
        public void filter(FilterExchange exchange, FilterChain chain) {
        }
    }

    private static final class RepliesThenProceeds implements GatewayFilter {
        @Override
        public void filter(FilterExchange exchange, FilterChain chain) throws IOException {
            exchange.replyLocally(ResponseHead.of(403), new byte[0]);
            chain.proceed(exchange);
        }
    }

    @Test
    void filtersRunInOrderAroundTheTerminalOnce() throws IOException {
        List<String> log = new ArrayList<>();
        TestExchange ex = TestExchange.get("/");
        FilterChains.run(List.of(new Recording("a", log), new Recording("b", log)), ex, exchange -> {
            log.add("origin");
            TestExchange.origin().proceed(exchange);
        });
        assertThat(log).containsExactly("a>", "b>", "origin", "<b", "<a");
        assertThat(ex.response().status()).isEqualTo(200);
    }

    @Test
    void anEmptyChainRunsTheTerminal() throws IOException {
        TestExchange ex = TestExchange.get("/");
        FilterChains.run(List.of(), ex, TestExchange.origin());
        assertThat(ex.response().status()).isEqualTo(200);
    }

    @Test
    void proceedingTwiceIsRefusedAndNamesTheFilter() {
        List<String> terminalCalls = new ArrayList<>();
        assertThatThrownBy(() -> FilterChains.run(List.of(new ProceedsTwice()), TestExchange.get("/"), exchange -> {
            terminalCalls.add("x");
            TestExchange.origin().proceed(exchange);
        }))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining(ProceedsTwice.class.getName())
                .hasMessageContaining("called proceed more than once");
        assertThat(terminalCalls).hasSize(1);
    }

    @Test
    void returningWithoutProceedingIsRefusedAndNamesTheFilter() {
        List<String> log = new ArrayList<>();
        assertThatThrownBy(() -> FilterChains.run(List.of(new Recording("a", log), new ForgetsToProceed()),
                TestExchange.get("/"), TestExchange.origin()))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining(ForgetsToProceed.class.getName())
                .hasMessageContaining("returned without calling proceed or replying locally");
    }

    @Test
    void proceedingAfterALocalReplyIsRefused() {
        assertThatThrownBy(() -> FilterChains.run(List.of(new RepliesThenProceeds()), TestExchange.get("/"),
                TestExchange.origin()))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining(RepliesThenProceeds.class.getName())
                .hasMessageContaining("called proceed after replying locally");
    }

    @Test
    void aLocalReplyWithoutProceedIsAllowedAndEarlierFiltersSeeIt() throws IOException {
        List<String> log = new ArrayList<>();
        List<Integer> seen = new ArrayList<>();
        GatewayFilter outer = (exchange, chain) -> {
            chain.proceed(exchange);
            seen.add(exchange.response().status());
        };
        GatewayFilter replier = (exchange, chain) -> exchange.replyLocally(ResponseHead.of(429), new byte[0]);
        TestExchange ex = TestExchange.get("/");
        FilterChains.run(List.of(outer, replier, new Recording("never", log)), ex, exchange -> log.add("origin"));
        assertThat(seen).containsExactly(429);
        assertThat(log).isEmpty();
    }

    @Test
    void exceptionsFromTheTerminalPropagateUnchanged() {
        IOException failure = new IOException("connection reset");
        assertThatThrownBy(() -> FilterChains.run(List.of(new Recording("a", new ArrayList<>())),
                TestExchange.get("/"), exchange -> {
                    throw failure;
                })).isSameAs(failure);
    }
}
