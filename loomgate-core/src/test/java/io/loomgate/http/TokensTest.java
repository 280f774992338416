package io.loomgate.http;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class TokensTest {

    @Test
    void aTokenIsOneOrMoreTchars() {
        assertThat(Tokens.isToken("X-Request-Id")).isTrue();
        assertThat(Tokens.isToken("!#$%&'*+-.^_`|~09azAZ")).isTrue();
        assertThat(Tokens.isToken("")).isFalse();
        assertThat(Tokens.isToken("X Foo")).isFalse();
        assertThat(Tokens.isToken("a:b")).isFalse();
        assertThat(Tokens.isToken("caf\u00e9")).isFalse();
    }

    @Test
    void exactlyTheSeventySevenTcharsOfRfc9110() {
        int count = 0;
        for (int c = 0; c < 256; c++) {
            if (Tokens.isTchar(c)) {
                count++;
                assertThat(c).isBetween(0x21, 0x7e);
                assertThat("\"(),/:;<=>?@[\\]{}").doesNotContain(String.valueOf((char) c));
            }
        }
        assertThat(count).isEqualTo(26 + 26 + 10 + 15);
        assertThat(Tokens.isTchar(-1)).isFalse();
    }
}
