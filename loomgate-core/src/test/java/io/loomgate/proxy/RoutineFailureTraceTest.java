package io.loomgate.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.proxy.ProxyFailure.Kind;
import java.io.IOException;
import java.util.EnumSet;
import org.junit.jupiter.api.Test;

/**
 * A routine failure is made without a stack trace (session 58): an open breaker refusing every request, a 404, a
 * client gone each made one {@code ProxyFailure} and walked the stack to fill a trace nobody logs (routine kinds are
 * logged at debug, message only). A bug ({@code INTERNAL}) and the upstream kinds keep theirs, starting where they were
 * made; a cause wrapped by a routine failure keeps its own.
 */
class RoutineFailureTraceTest {

    @Test
    void theGatewaysOwnRoutineAnswersCarryNoStackTrace() {
        assertThat(ProxyFailure.circuitOpen("circuit breaker is open", 5).getStackTrace()).isEmpty();
        for (Kind kind : EnumSet.of(Kind.BAD_REQUEST, Kind.NO_ROUTE, Kind.OVERLOADED, Kind.CIRCUIT_OPEN,
                Kind.DEADLINE_EXCEEDED, Kind.CLIENT_ABORTED, Kind.CLIENT_TIMEOUT, Kind.DRAIN_CUT)) {
            assertThat(new ProxyFailure(kind, "routine", null).getStackTrace()).as(kind.name()).isEmpty();
        }
    }

    @Test
    void bugsAndUpstreamFailuresKeepTheirTraceFromWhereTheyWereMade() {
        for (Kind kind : Kind.values()) {
            if (kind.source() == ProxyFailure.Source.UPSTREAM || kind == Kind.INTERNAL) {
                StackTraceElement[] trace = new ProxyFailure(kind, "traced", null).getStackTrace();
                assertThat(trace).as(kind.name()).isNotEmpty();
                assertThat(trace[0].getMethodName()).as(kind + ": the constructors' frames left out")
                        .isEqualTo("bugsAndUpstreamFailuresKeepTheirTraceFromWhereTheyWereMade");
            }
        }
    }

    @Test
    void aRoutineFailuresCauseKeepsItsOwnTrace() {
        IOException reset = new IOException("Connection reset");
        ProxyFailure gone = new ProxyFailure(Kind.CLIENT_ABORTED, "client went away", reset);
        assertThat(gone.getStackTrace()).isEmpty();
        assertThat(gone.getCause()).isSameAs(reset);
        assertThat(reset.getStackTrace()).isNotEmpty();
        gone.addSuppressed(new IOException("also"));
        assertThat(gone.getSuppressed()).hasSize(1);
    }
}
