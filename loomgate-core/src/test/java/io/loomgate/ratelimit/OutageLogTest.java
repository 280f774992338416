package io.loomgate.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * A store flapping between failing and answering writes one outage line per interval, with the count, and one line
 * that it answers again after each, not one per flap; a short outage's end is written when the store answers.
 */
class OutageLogTest {
    private static final long SECOND = 1_000_000_000L;
    private final AtomicLong now = new AtomicLong(77 * SECOND);
    private final OutageLog log = new OutageLog("redis", RedisSettings.FailureMode.OPEN, now::get,
            OutageLog.INTERVAL_NANOS);
    private final ListAppender<ILoggingEvent> lines = new ListAppender<>();

    @BeforeEach
    void capture() {
        lines.start();
        ((Logger) LoggerFactory.getLogger(OutageLog.class)).addAppender(lines);
    }

    @AfterEach
    void release() {
        ((Logger) LoggerFactory.getLogger(OutageLog.class)).detachAppender(lines);
    }

    @Test
    void twoThousandFlapsInTenSecondsAreAnOutageLineAndAnAnswerLineWithTheirCount() {
        StoreUnavailableException e = new StoreUnavailableException("redis://127.0.0.1:6379: Read timed out", null);
        for (int i = 0; i < 2_000; i++) {
            log.failed(e);
            log.answered();
            now.addAndGet(SECOND / 250); // 2,000 flaps over 8 s
        }
        assertThat(lines.list).hasSize(2);
        assertThat(lines.list.get(0).getFormattedMessage()).contains("1 failed call(s)")
                .contains("Read timed out").contains("failure-mode: open");
        assertThat(lines.list.get(1).getFormattedMessage()).contains("answers again");
        now.addAndGet(2 * SECOND); // 10 s after the first line
        log.failed(e);
        assertThat(lines.list).hasSize(3);
        assertThat(lines.list.get(2).getFormattedMessage()).contains("2000 failed call(s)");
    }

    @Test
    void aShortOutagesEndIsWrittenWhenTheStoreAnswersAndBeforeTheNextOutagesLine() {
        StoreUnavailableException e = new StoreUnavailableException("redis://127.0.0.1:6379: Connection refused", null);
        log.failed(e);
        now.addAndGet(7 * SECOND); // Redis back 7 s later
        log.answered();
        log.answered();
        assertThat(lines.list).extracting(ILoggingEvent::getFormattedMessage)
                .satisfiesExactly(l -> assertThat(l).contains("store unavailable"),
                        l -> assertThat(l).contains("store answers again"));
        now.addAndGet(SECOND); // and down again 1 s later: within the interval, counted for the next line
        log.failed(e);
        assertThat(lines.list).hasSize(2);
        now.addAndGet(2 * SECOND);
        log.failed(e);
        log.answered();
        assertThat(lines.list).extracting(ILoggingEvent::getFormattedMessage).hasSize(4)
                .satisfies(l -> assertThat(l.get(2)).contains("unavailable (2 failed call(s)"),
                        l -> assertThat(l.get(3)).contains("answers again (0 failed call(s)"));
    }
}
