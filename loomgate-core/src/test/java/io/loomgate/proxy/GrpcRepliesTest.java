package io.loomgate.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.grpc.GrpcStatus;
import io.loomgate.proxy.ProxyFailure.Kind;
import java.util.EnumMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The one table: what a gRPC client is told for each failure the gateway answers and each local reply status. */
class GrpcRepliesTest {

    @Test
    void everyFailureKindHasTheStatusAClientCanActOn() {
        Map<Kind, GrpcStatus> expected = new EnumMap<>(Kind.class);
        expected.put(Kind.NO_ROUTE, GrpcStatus.UNIMPLEMENTED);
        expected.put(Kind.UPSTREAM_TIMEOUT, GrpcStatus.DEADLINE_EXCEEDED);
        expected.put(Kind.DEADLINE_EXCEEDED, GrpcStatus.DEADLINE_EXCEEDED);
        expected.put(Kind.CONNECT_REFUSED, GrpcStatus.UNAVAILABLE);
        expected.put(Kind.CONNECT_TIMEOUT, GrpcStatus.UNAVAILABLE);
        expected.put(Kind.UPSTREAM_TLS, GrpcStatus.UNAVAILABLE);
        expected.put(Kind.POOL_EXHAUSTED, GrpcStatus.UNAVAILABLE);
        expected.put(Kind.UPSTREAM_RESET, GrpcStatus.UNAVAILABLE);
        expected.put(Kind.BAD_RESPONSE, GrpcStatus.UNAVAILABLE);
        expected.put(Kind.UPSTREAM_ABORTED, GrpcStatus.UNAVAILABLE);
        expected.put(Kind.OVERLOADED, GrpcStatus.UNAVAILABLE);
        expected.put(Kind.CIRCUIT_OPEN, GrpcStatus.UNAVAILABLE); // the breaker holds calls off: try again later
        expected.put(Kind.CLIENT_ABORTED, GrpcStatus.CANCELLED);
        expected.put(Kind.CLIENT_TIMEOUT, GrpcStatus.CANCELLED);
        expected.put(Kind.DRAIN_CUT, GrpcStatus.UNAVAILABLE); // the server going away; never sent (no connection)
        expected.put(Kind.INTERNAL, GrpcStatus.INTERNAL);
        expected.put(Kind.BAD_REQUEST, GrpcStatus.INTERNAL); // 400: gRPC's mapping
        expected.put(Kind.BODY_TOO_LARGE, GrpcStatus.RESOURCE_EXHAUSTED); // 413, as RequestSize answers itself
        expected.put(Kind.LOOP_DETECTED, GrpcStatus.INTERNAL); // 508: the configuration loops, no retry helps
        assertThat(expected.keySet()).containsExactlyInAnyOrder(Kind.values());
        expected.forEach((kind, status) ->
                assertThat(GrpcReplies.statusFor(new ProxyFailure(kind, "x", null))).as(kind.name()).isEqualTo(status));
    }

    @Test
    void aRefusalCarriesItsStatusThrough() {
        assertThat(GrpcReplies.statusFor(new ProxyFailure(Kind.BAD_REQUEST, 413, "too large", null)))
                .isEqualTo(GrpcStatus.RESOURCE_EXHAUSTED);
    }

    @Test
    void localRepliesFollowGrpcsHttpMappingExceptWhereTheGatewayKnowsTheCause() {
        assertThat(GrpcReplies.statusFor(400)).isEqualTo(GrpcStatus.INTERNAL);
        assertThat(GrpcReplies.statusFor(401)).isEqualTo(GrpcStatus.UNAUTHENTICATED);
        assertThat(GrpcReplies.statusFor(403)).isEqualTo(GrpcStatus.PERMISSION_DENIED);
        assertThat(GrpcReplies.statusFor(404)).isEqualTo(GrpcStatus.UNIMPLEMENTED);
        assertThat(GrpcReplies.statusFor(502)).isEqualTo(GrpcStatus.UNAVAILABLE);
        assertThat(GrpcReplies.statusFor(503)).isEqualTo(GrpcStatus.UNAVAILABLE);
        assertThat(GrpcReplies.statusFor(504)).isEqualTo(GrpcStatus.UNAVAILABLE);
        // departures: a quota or a size limit is RESOURCE_EXHAUSTED, not UNAVAILABLE / UNKNOWN
        assertThat(GrpcReplies.statusFor(429)).isEqualTo(GrpcStatus.RESOURCE_EXHAUSTED);
        assertThat(GrpcReplies.statusFor(413)).isEqualTo(GrpcStatus.RESOURCE_EXHAUSTED);
        assertThat(GrpcReplies.statusFor(301)).isEqualTo(GrpcStatus.UNKNOWN);
        assertThat(GrpcReplies.statusFor(500)).isEqualTo(GrpcStatus.UNKNOWN);
    }

    @Test
    void anOriginsAnswerWithoutGrpcStatusIsWhatTheClientMapsItToWithNoDeparture() {
        assertThat(GrpcReplies.mappedByClient(404)).isEqualTo(GrpcStatus.UNIMPLEMENTED);
        assertThat(GrpcReplies.mappedByClient(429)).isEqualTo(GrpcStatus.UNAVAILABLE);
        assertThat(GrpcReplies.mappedByClient(413)).isEqualTo(GrpcStatus.UNKNOWN);
        assertThat(GrpcReplies.mappedByClient(200)).isEqualTo(GrpcStatus.UNKNOWN);
    }
}
