package io.loomgate.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import io.loomgate.http1.HttpParseException;
import io.loomgate.proxy.FailureClassifier.Stage;
import io.loomgate.proxy.ProxyFailure.Kind;
import io.loomgate.upstream.Endpoint;
import io.loomgate.upstream.PoolExhaustedException;
import java.io.EOFException;
import java.io.IOException;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Every exception the proxy meets becomes one failure kind, decided by its type and the stage it came from. */
class FailureClassifierTest {
    private static final Endpoint ORIGIN = new Endpoint("10.0.0.7", 8080);

    private static ProxyFailure classify(IOException e, Stage stage) {
        return FailureClassifier.classify(e, stage, ORIGIN, "users", Duration.ofMillis(1500));
    }

    @Test
    void connectFailuresSayWhetherTheOriginRefusedTimedOutOrThePoolWasFull() {
        assertThat(classify(new ConnectException("refused"), Stage.CONNECT))
                .returns(Kind.CONNECT_REFUSED, ProxyFailure::kind).returns(502, ProxyFailure::status)
                .hasMessage("upstream 10.0.0.7:8080 (route 'users') refused the connection");
        assertThat(classify(new NoRouteToHostException("no route"), Stage.CONNECT).kind())
                .isEqualTo(Kind.CONNECT_REFUSED);
        assertThat(classify(new SocketTimeoutException("slow"), Stage.CONNECT))
                .returns(Kind.CONNECT_TIMEOUT, ProxyFailure::kind)
                .hasMessage("connecting to upstream 10.0.0.7:8080 (route 'users') timed out");
        assertThat(classify(new PoolExhaustedException("no connection free within 5ms"), Stage.CONNECT))
                .returns(Kind.POOL_EXHAUSTED, ProxyFailure::kind).returns(503, ProxyFailure::status)
                .hasMessage("no connection free within 5ms for upstream 10.0.0.7:8080 (route 'users')");
        assertThat(classify(new IOException("odd"), Stage.CONNECT).getMessage())
                .isEqualTo("cannot connect to upstream 10.0.0.7:8080 (route 'users'): odd");
    }

    @Test
    void forwardingFailuresTellTimeoutInvalidHeadAndResetApart() {
        assertThat(classify(new SocketTimeoutException("read timed out"), Stage.FORWARD))
                .returns(Kind.UPSTREAM_TIMEOUT, ProxyFailure::kind).returns(504, ProxyFailure::status)
                .hasMessage("upstream 10.0.0.7:8080 (route 'users') sent no response within 1500 ms");
        assertThat(classify(new HttpParseException(502, "bad status line"), Stage.FORWARD))
                .returns(Kind.BAD_RESPONSE, ProxyFailure::kind)
                .hasMessageContaining("sent an invalid response: bad status line");
        assertThat(classify(new EOFException(), Stage.FORWARD))
                .returns(Kind.UPSTREAM_RESET, ProxyFailure::kind)
                .hasMessage("upstream 10.0.0.7:8080 (route 'users') closed the connection before responding");
        assertThat(classify(new SocketException("Connection reset"), Stage.FORWARD))
                .returns(Kind.UPSTREAM_RESET, ProxyFailure::kind)
                .hasMessage("upstream 10.0.0.7:8080 (route 'users') failed: Connection reset");
    }

    @Test
    void aFailedReadOfTheRequestBodyIsTheClients() {
        ProxyFailure malformed = classify(new BodyRelay.ReadFailed(new HttpParseException(400, "bad chunk size")),
                Stage.FORWARD);
        assertThat(malformed.kind()).isEqualTo(Kind.BAD_REQUEST);
        assertThat(malformed.status()).isEqualTo(400);
        assertThat(malformed).hasMessage("malformed request body: bad chunk size");
        // a body over a route's cap (RequestSize, CacheRequestBody) is well formed, only too long: its own kind
        ProxyFailure tooLarge = classify(new BodyRelay.ReadFailed(new HttpParseException(413,
                "request body larger than the route's limit of 1024 bytes")), Stage.FORWARD);
        assertThat(tooLarge.kind()).isEqualTo(Kind.BODY_TOO_LARGE);
        assertThat(tooLarge.status()).isEqualTo(413);
        assertThat(tooLarge).hasMessage("request body larger than the route's limit of 1024 bytes");
        assertThat(classify(new BodyRelay.ReadFailed(new SocketException("reset")), Stage.FORWARD).kind())
                .isEqualTo(Kind.CLIENT_ABORTED);
        ProxyFailure stalled = classify(new BodyRelay.ReadFailed(new java.net.SocketTimeoutException("Read timed out")),
                Stage.FORWARD);
        assertThat(stalled.kind()).as("a body stalled past read-timeout: the client is there to read 408")
                .isEqualTo(Kind.CLIENT_TIMEOUT);
        assertThat(stalled.status()).isEqualTo(408);
    }

    @Test
    void midBodyTheReadingSideDecidesWhoFailed() {
        assertThat(classify(new BodyRelay.ReadFailed(new EOFException("early end")), Stage.RESPONSE_BODY))
                .returns(Kind.UPSTREAM_ABORTED, ProxyFailure::kind)
                .hasMessage("upstream 10.0.0.7:8080 failed mid-body: early end");
        assertThat(classify(new BodyRelay.WriteFailed(new SocketException("Broken pipe")), Stage.RESPONSE_BODY))
                .returns(Kind.CLIENT_ABORTED, ProxyFailure::kind)
                .hasMessage("client went away mid-body: Broken pipe");
        assertThat(classify(new SocketException("Broken pipe"), Stage.CLIENT_WRITE).kind())
                .isEqualTo(Kind.CLIENT_ABORTED);
    }

    @Test
    void aFailureAlreadyClassifiedPassesThroughUnchanged() {
        ProxyFailure f = new ProxyFailure(Kind.NO_ROUTE, "no route", null);
        assertThat(classify(f, Stage.FORWARD)).isSameAs(f);
    }

    @Test
    void onlyAResetBeforeAnyResponseOnAReusedConnectionOfAnIdempotentBodilessRequestIsRetried() {
        ProxyFailure reset = classify(new EOFException(), Stage.FORWARD);
        UpstreamAttempt.Facts stale = new UpstreamAttempt.Facts(0, true, true, false, true, false);
        assertThat(FailureClassifier.mayRetry(reset, stale)).isTrue();

        assertThat(FailureClassifier.mayRetry(reset, new UpstreamAttempt.Facts(1, true, true, false, true, false)))
                .as("one retry only").isFalse();
        assertThat(FailureClassifier.mayRetry(reset, new UpstreamAttempt.Facts(0, false, true, false, true, false)))
                .as("a fresh connection that fails is not a stale keep-alive").isFalse();
        assertThat(FailureClassifier.mayRetry(reset, new UpstreamAttempt.Facts(0, true, true, true, true, false)))
                .as("a body cannot be replayed yet").isFalse();
        assertThat(FailureClassifier.mayRetry(reset, new UpstreamAttempt.Facts(0, true, true, false, false, false)))
                .as("POST is not idempotent").isFalse();
        assertThat(FailureClassifier.mayRetry(reset, new UpstreamAttempt.Facts(0, true, true, false, true, true)))
                .as("part of a response arrived").isFalse();

        ProxyFailure timeout = classify(new SocketTimeoutException(), Stage.FORWARD);
        ProxyFailure invalid = classify(new HttpParseException(502, "junk"), Stage.FORWARD);
        ProxyFailure refused = classify(new ConnectException(), Stage.CONNECT);
        assertThat(FailureClassifier.mayRetry(timeout, stale)).isFalse();
        assertThat(FailureClassifier.mayRetry(invalid, stale)).isFalse();
        assertThat(FailureClassifier.mayRetry(refused, stale)).isFalse();
        assertThat(reset.retryable()).isTrue();
        assertThat(timeout.retryable()).isFalse();
    }
}
