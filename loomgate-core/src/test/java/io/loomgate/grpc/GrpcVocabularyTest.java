package io.loomgate.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class GrpcVocabularyTest {

    @ParameterizedTest
    @ValueSource(strings = {"application/grpc", "application/grpc+proto", "application/grpc+json",
        "application/grpc;charset=utf-8", "Application/GRPC+Proto", "application/grpc+thrift"})
    void gRpcAndItsSubtypesAreGrpc(String contentType) {
        assertThat(Grpc.isGrpc(contentType)).isTrue();
    }

    @ParameterizedTest
    @ValueSource(strings = {"application/grpc-web", "application/grpc-web+proto", "application/grpcx",
        "application/json", "text/plain", "application/gr", ""})
    void gRpcWebAndOthersAreNot(String contentType) {
        assertThat(Grpc.isGrpc(contentType)).isFalse();
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 4, 14, 16})
    void statusCodesReadBack(int code) {
        GrpcStatus s = GrpcStatus.ofCode(code);
        assertThat(s.code()).isEqualTo(code);
        assertThat(GrpcStatus.parseCode(s.text())).isEqualTo(code);
        assertThat(GrpcStatus.valueOf(s.name())).isSameAs(s);
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "x", "-1", "1000", "1 "})
    void aStatusThatIsNotANumberReadsAsMinusOne(String value) {
        assertThat(GrpcStatus.parseCode(value)).isEqualTo(-1);
    }
}
