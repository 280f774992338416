package io.loomgate.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class GrpcMessageTest {

    @Test
    void printableAsciiIsSentAsItIs() {
        String text = "upstream 127.0.0.1:8080 (route 'a') refused the connection";
        assertThat(GrpcMessage.encode(text)).isSameAs(text);
    }

    @Test
    void percentControlsAndNonAsciiArePercentEncodedAsUtf8Bytes() {
        assertThat(GrpcMessage.encode("100% done")).isEqualTo("100%25 done");
        assertThat(GrpcMessage.encode("line\nbreak\t")).isEqualTo("line%0Abreak%09");
        assertThat(GrpcMessage.encode("café ☕")).isEqualTo("caf%C3%A9 %E2%98%95");
        assertThat(GrpcMessage.encode("\u007f")).isEqualTo("%7F");
    }

    @Test
    void decodingUndoesEncodingAndKeepsAStrayPercent() {
        for (String text : new String[] {"plain", "100% done", "café ☕\r\n", "%", "%%41"}) {
            assertThat(GrpcMessage.decode(GrpcMessage.encode(text))).isEqualTo(text);
        }
        assertThat(GrpcMessage.decode("50%")).isEqualTo("50%");
        assertThat(GrpcMessage.decode("%zz")).isEqualTo("%zz");
        assertThat(GrpcMessage.decode("a%20b")).isEqualTo("a b");
    }
}
