package io.loomgate.filter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.loomgate.extension.ArgumentException;
import io.loomgate.testkit.TestExchange;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** CacheRequestBody's arguments and the attribute it leaves for the filters after it (the proxy part: it/). */
class CacheRequestBodyFilterTest {

    private static Object cached(Map<String, String> args, byte[] body) throws Exception {
        TestExchange x = TestExchange.get("/");
        x.requestBody = body;
        FilterChains.run(List.of(CacheRequestBodyFilter.FACTORY.create(args)), x, TestExchange.origin());
        assertThat(x.bodyReads).isEqualTo(1);
        return x.attributes().get(CacheRequestBodyFilter.ATTRIBUTE);
    }

    @Test
    void keepsTheBodyAsTheBodyClassAsks() throws Exception {
        byte[] body = "héllo".getBytes(StandardCharsets.UTF_8);
        assertThat(cached(Map.of("bodyClass", "java.lang.String"), body)).isEqualTo("héllo");
        assertThat(cached(Map.of("bodyClass", "byte[]"), body)).isEqualTo(body);
        assertThat(cached(Map.of(), body)).isEqualTo(body);
        assertThat(cached(Map.of("bodyClass", "org.springframework.core.io.buffer.DataBuffer"), body))
                .isEqualTo(body);
        assertThat(cached(Map.of("bodyClass", "java.nio.ByteBuffer"), body)).isEqualTo(ByteBuffer.wrap(body));
    }

    @Test
    void aBodyCachedAlreadyIsNotReadAgain() throws Exception {
        TestExchange x = TestExchange.get("/");
        x.attributes().put(CacheRequestBodyFilter.ATTRIBUTE, "earlier");
        FilterChains.run(List.of(CacheRequestBodyFilter.FACTORY.create(Map.of())), x,
                TestExchange.origin());
        assertThat(x.bodyReads).isZero();
        assertThat(x.attributes().get(CacheRequestBodyFilter.ATTRIBUTE)).isEqualTo("earlier");
    }

    @Test
    void classesThatNeedJavaCodeAndBadBoundsAreRefused() {
        assertThatThrownBy(() -> CacheRequestBodyFilter.FACTORY.create(Map.of("bodyClass", "com.example.Order")))
                .isInstanceOf(ArgumentException.class)
                .hasMessage("bodyClass: 'com.example.Order' needs Java code to convert the body into it "
                        + "(ReadBody-style); Loomgate keeps the body as java.lang.String or byte[] "
                        + "(java.nio.ByteBuffer, org.springframework.core.io.buffer.DataBuffer as its bytes)");
        assertThatThrownBy(() -> CacheRequestBodyFilter.FACTORY.create(Map.of("bodyClass",
                "org.springframework.util.MultiValueMap"))).hasMessageContaining("needs Java code");
        assertThatThrownBy(() -> CacheRequestBodyFilter.FACTORY.create(Map.of("max-size", "3GB")))
                .hasMessage("max-size: expected a size from 0 to 2GB, got 3221225472");
        assertThatThrownBy(() -> CacheRequestBodyFilter.FACTORY.create(Map.of("max-size", "lots")))
                .hasMessageContaining("max-size: expected a size like 5MB");
    }
}
