package io.loomgate.server;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.loomgate.testkit.RawClient;
import io.loomgate.threads.ConnectionExecutors;
import io.loomgate.threads.ThreadModel;
import java.io.IOException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * {@code transport: auto} where epoll cannot run (here: loomgate-core's own tests, without the module loomgate-epoll on
 * the class path, as a gateway built without it or run on Java 21 would be): the listener starts on the JDK's sockets,
 * serves, parks its idle connections in the JDK's selector, and says why in one info line; no error, no warning.
 */
class TransportAutoFallbackTest {
    private final ListAppender<ILoggingEvent> lines = new ListAppender<>();

    @BeforeEach
    void capture() {
        lines.start();
        ((Logger) LoggerFactory.getLogger(Transport.class)).addAppender(lines);
    }

    @AfterEach
    void release() {
        ((Logger) LoggerFactory.getLogger(Transport.class)).detachAppender(lines);
    }

    @Test
    void autoWithoutTheEpollModuleRunsOnTheJdkSocketsAndSaysWhyOnce() throws IOException {
        String why = Transport.epollUnavailableReason();
        assertThat(why).as("loomgate-epoll is not on loomgate-core's test class path").isNotNull();
        try (Listener l = new Listener(ListenerSettings.defaults("127.0.0.1", 0), ex -> ex.respond(200, "hi"),
                ConnectionExecutors.create(ThreadModel.VIRTUAL, "auto-test"), ConnectionListener.NOOP)
                .transport(Transport.AUTO).start();
             RawClient client = new RawClient(l.port())) {
            assertThat(l.transport()).isEqualTo(Transport.JDK);
            assertThat(client.get("/").bodyText()).isEqualTo("hi");
        }
        assertThat(lines.list).singleElement().satisfies(line -> {
            assertThat(line.getLevel()).isEqualTo(Level.INFO);
            assertThat(line.getFormattedMessage()).contains("transport auto runs on the JDK's sockets").contains(why);
        });
    }
}
