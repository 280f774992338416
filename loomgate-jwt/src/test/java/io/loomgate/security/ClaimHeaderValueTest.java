package io.loomgate.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.nimbusds.jwt.JWTClaimsSet;
import java.util.Date;
import org.junit.jupiter.api.Test;

/**
 * Each JSON type of a claim has one header form (issue 35 item 10), read here from claims as nimbus parses them from
 * a token's payload, so the Java types are the ones a real token gives.
 */
class ClaimHeaderValueTest {
    private static String header(String payloadValue) throws Exception {
        Object v = JWTClaimsSet.parse("{\"c\":" + payloadValue + "}").getClaim("c");
        return ClaimHeaderValue.of("c", v);
    }

    @Test
    void printableAsciiStringsNumbersAndBooleansAreAsTheyAre() throws Exception {
        assertThat(header("\"alice@example.com\"")).isEqualTo("alice@example.com");
        assertThat(header("\"a, \\\"b\\\"\"")).as("a lone string is no list: no quoting").isEqualTo("a, \"b\"");
        assertThat(header("42")).isEqualTo("42");
        assertThat(header("1.5")).isEqualTo("1.5");
        assertThat(header("true")).isEqualTo("true");
        assertThat(ClaimHeaderValue.of("exp", new Date(1_700_000_000_000L))).isEqualTo("1700000000");
    }

    @Test
    void nonAsciiIsAnRfc8187ExtValueAndSoIsAStringThatWouldReadAsOne() throws Exception {
        assertThat(header("\"Zo\u00eb\"")).isEqualTo("UTF-8''Zo%C3%AB");
        assertThat(header("\"\u65e5\u672c \ud83d\ude00\"")).isEqualTo("UTF-8''%E6%97%A5%E6%9C%AC%20%F0%9F%98%80");
        assertThat(header("\"utf-8''x\"")).isEqualTo("UTF-8''utf-8%27%27x");
    }

    @Test
    void objectsAreJsonWithNonAsciiEscaped() throws Exception {
        assertThat(header("{\"admin\":true}")).isEqualTo("{\"admin\":true}");
        assertThat(header("{\"n\":\"Zo\u00eb\\n\"}")).isEqualTo("{\"n\":\"Zo\\u00eb\\n\"}");
    }

    @Test
    void listItemsAreCommaSeparatedAndQuotedWhenTheyMustBe() throws Exception {
        assertThat(header("[\"a\",\"b\"]")).isEqualTo("a,b");
        assertThat(header("[\"a,b\",\"\",\" c\",\"back\\\\slash\",1,[2,3],{\"k\":\"v\"}]"))
                .isEqualTo("\"a,b\",\"\",\" c\",\"back\\\\slash\",1,\"[2,3]\",\"{\\\"k\\\":\\\"v\\\"}\"");
        assertThat(header("[\"\u00e9\"]")).isEqualTo("UTF-8''%C3%A9");
        assertThat(header("[]")).isEmpty();
    }

    @Test
    void controlCharactersInAStringAreRefused() {
        assertThatThrownBy(() -> header("\"a\\r\\nX-Admin: 1\""))
                .isInstanceOf(BearerRejection.class).hasMessageContaining("control characters");
        assertThatThrownBy(() -> header("[\"ok\",\"a\\u0000\"]")).isInstanceOf(BearerRejection.class);
    }
}
