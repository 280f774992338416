package io.loomgate.http1;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** When the wait for a response head yields first: while yields pay, and now and then after they stopped paying. */
class AnswerYieldTest {
    private static final long QUICK = 5_000;       // the read after the yield found the bytes
    private static final long WAITED = 100_000_000; // it parked until the origin answered (W9: 100 ms)
    private static final long ROUND = 5_000_000;    // it parked for a round of the ready threads (W8 under load)

    @Test
    void aQuickOriginIsAlwaysYieldedFor() {
        AnswerYield y = new AnswerYield();
        for (int i = 0; i < 100; i++) {
            assertThat(y.shouldYield()).isTrue();
            y.yielded(QUICK);
        }
    }

    @Test
    void waitsOfAFewMillisecondsForTheCarrierDoNotStopTheYields() {
        AnswerYield y = new AnswerYield();
        for (int i = 0; i < 100; i++) {
            assertThat(y.shouldYield()).isTrue();
            y.yielded(ROUND);
        }
    }

    @Test
    void oneWaitAmongQuickAnswersDoesNotStopTheYields() {
        AnswerYield y = new AnswerYield();
        for (int i = 0; i < 100; i++) {
            assertThat(y.shouldYield()).isTrue();
            y.yielded(i % 2 == 0 ? WAITED : QUICK);
        }
    }

    @Test
    void aSlowOriginIsYieldedForOnceEverySixteenWaits() {
        AnswerYield y = new AnswerYield();
        int yields = 0;
        for (int i = 0; i < AnswerYield.FUTILE_LIMIT + 160; i++) {
            if (y.shouldYield()) {
                yields++;
                y.yielded(WAITED);
            }
        }
        assertThat(yields).isEqualTo(AnswerYield.FUTILE_LIMIT + 160 / AnswerYield.RETRY_EVERY);
    }

    @Test
    void anOriginThatBecameQuickIsYieldedForAgainAfterTheNextTest() {
        AnswerYield y = new AnswerYield();
        for (int i = 0; i < AnswerYield.FUTILE_LIMIT; i++) {
            y.shouldYield();
            y.yielded(WAITED);
        }
        int waits = 0;
        while (!y.shouldYield()) {
            waits++;
        }
        assertThat(waits).isEqualTo(AnswerYield.RETRY_EVERY - 1);
        y.yielded(QUICK);
        assertThat(y.shouldYield()).isTrue();
        y.yielded(QUICK);
        assertThat(y.shouldYield()).isTrue();
    }
}
