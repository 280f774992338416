package io.loomgate.extension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The one value grammar of predicate, filter and policy arguments (it replaced ExtensionArgs' first form,
 * SecurityArgs and resilience's ArgText, which had drifted apart: 1d worked for JwtAuth and not for Retry).
 */
class ExtensionArgsTest {

    @Test
    void blankCountsAsNotWrittenForEveryReaderButPresent() {
        ExtensionArgs args = new ExtensionArgs(Map.of("name", "  ", "flag", " ", "n", "", "re", "\t"));
        assertThatThrownBy(() -> args.required("name")).hasMessage("missing argument 'name'");
        assertThatThrownBy(() -> args.intAtLeast("n", 0)).hasMessage("missing argument 'n'");
        assertThatThrownBy(() -> args.regex("re")).hasMessage("missing argument 're'");
        assertThat(args.optional("name", "fallback")).isEqualTo("fallback");
        assertThat(args.bool("flag", true)).isTrue();
        assertThat(args.optionalRegex("re")).isNull();
        assertThat(args.present("name")).isEqualTo("  ");
    }

    @Test
    void writtenValuesAreTrimmedExceptPresentOnes() {
        ExtensionArgs args = new ExtensionArgs(Map.of("name", " X-Foo ", "n", " 3 ", "flag", " FALSE ",
                "value", " spaced "));
        assertThat(args.required("name")).isEqualTo("X-Foo");
        assertThat(args.optional("name", null)).isEqualTo("X-Foo");
        assertThat(args.intAtLeast("n", 1)).isEqualTo(3);
        assertThat(args.bool("flag", true)).isFalse();
        assertThat(args.present("value")).isEqualTo(" spaced ");
    }

    @Test
    void refusalsNameTheArgumentAndWhatWasExpected() {
        ExtensionArgs args = new ExtensionArgs(Map.of("n", "0", "flag", "maybe", "re", "(", "absent", "x"));
        assertThatThrownBy(() -> args.intAtLeast("n", 1)).hasMessage("n: expected an integer >= 1, got '0'");
        assertThatThrownBy(() -> args.bool("flag", false)).hasMessage("flag: expected true or false, got 'maybe'");
        assertThatThrownBy(() -> args.regex("re")).hasMessageStartingWith("re: invalid regular expression '('");
        assertThatThrownBy(() -> args.present("value")).hasMessage("missing argument 'value'");
    }

    @Test
    void listsSplitOnCommasOutsideBraces() {
        ExtensionArgs args = new ExtensionArgs(Map.of("p", "/a, /users/{id:[0-9]{1,3}} ,/b", "bad", "/a,,/b"));
        assertThat(args.list("p")).containsExactly("/a", "/users/{id:[0-9]{1,3}}", "/b");
        assertThatThrownBy(() -> args.list("bad")).hasMessage("bad: empty item in '/a,,/b'");
    }

    @Test
    void durationsSizesStatusesSeriesMappingsAndNumbersReadOneWay() {
        ExtensionArgs args = new ExtensionArgs(Map.of("day", "1d", "iso", "PT1.5S", "us", "250us", "size", "64kb",
                "mb", "5 MB", "bytes", "1024", "statuses", "500, BAD_GATEWAY ,i_am_a_teapot", "one", "NOT_FOUND",
                "series", "SERVER_ERROR,4", "map", "sub=X-User-Id, tenant=X-Tenant"));
        assertThat(args.duration("day", null)).isEqualTo(Duration.ofDays(1));
        assertThat(args.duration("iso", null)).isEqualTo(Duration.ofMillis(1500));
        assertThat(args.duration("us", null)).isEqualTo(Duration.ofNanos(250_000));
        assertThat(args.duration("absent", Duration.ofSeconds(3))).isEqualTo(Duration.ofSeconds(3));
        assertThat(args.positiveDuration("day", null)).isEqualTo(Duration.ofDays(1));
        assertThat(args.size("size", 0)).isEqualTo(64 * 1024);
        assertThat(args.size("mb", 0)).isEqualTo(5L * 1024 * 1024);
        assertThat(args.size("bytes", 0)).isEqualTo(1024);
        assertThat(args.size("absent", 7)).isEqualTo(7);
        assertThat(args.statuses("statuses")).containsExactly(500, 502, 418);
        assertThat(args.statuses("absent")).isEmpty();
        assertThat(args.status("one")).isEqualTo(404);
        assertThat(args.series("series", Set.of())).containsExactly(5, 4);
        assertThat(args.series("absent", Set.of(5))).containsExactly(5);
        assertThat(args.mapping("map")).containsExactly(Map.entry("sub", "X-User-Id"), Map.entry("tenant", "X-Tenant"));
        assertThat(args.mapping("absent")).isEmpty();
        assertThat(new ExtensionArgs(Map.of("factor", "0.5")).decimalIn("factor", 0, 0, 1)).isEqualTo(0.5);
        assertThat(args.intIn("absent", 9, 1, 10)).isEqualTo(9);
    }

    @Test
    void headerNamesMethodsAndTokensAreRfc9110Tokens() {
        ExtensionArgs args = new ExtensionArgs(Map.of("h", "X-Api-Key", "bad", "X Key", "hs", "X-A, *",
                "m", "get, POST", "badm", "P OST", "c", "session"));
        assertThat(args.headerName("h", null)).isEqualTo("X-Api-Key");
        assertThat(args.headerName("absent", "X-Default")).isEqualTo("X-Default");
        assertThat(args.headerNames("hs", List.of())).containsExactly("X-A", "*");
        assertThat(args.methods("m", null)).containsExactly("GET", "POST");
        assertThat(args.token("c", "cookie name")).isEqualTo("session");
        assertThatThrownBy(() -> args.headerName("bad", null))
                .hasMessage("bad: 'X Key' is not a valid header name (RFC 9110 token)");
        assertThatThrownBy(() -> new ExtensionArgs(Map.of("hs", "X-A, X B")).headerNames("hs", List.of()))
                .hasMessage("hs: 'X B' is not a valid header name (RFC 9110 token)");
        assertThatThrownBy(() -> args.methods("badm", null)).hasMessage("badm: 'P OST' is not a method name");
        assertThatThrownBy(() -> args.token("bad", "cookie name")).hasMessage("bad: 'X Key' is not a valid cookie name");
    }

    @Test
    void everyRefusalIsAnArgumentExceptionNamingItsArgument() {
        ExtensionArgs args = new ExtensionArgs(Map.of("d", "10", "z", "0s", "s", "5 parsecs", "st", "SERVER_ERROR",
                "st2", "600", "se", "WEIRD", "map", "sub", "f", "1.5", "n", "x"));
        assertRefused(() -> args.duration("d", null), "d",
                "d: a duration needs a unit (us, ms, s, m, h or d), like 2s or 500ms; got '10'");
        assertRefused(() -> args.positiveDuration("z", null), "z", "z: expected a duration longer than 0, got '0s'");
        assertRefused(() -> args.size("s", 0), "s", "s: expected a size like 5MB, 512KB or 1024 (bytes), got "
                + "'5 parsecs'");
        assertRefused(() -> args.statuses("st"), "st", "st: expected a status code 100..599 or a name like "
                + "NOT_FOUND, got 'SERVER_ERROR' (SERVER_ERROR is a series of statuses: write it under series)");
        assertRefused(() -> args.status("st2"), "st2", "st2: expected a status code 100..599 or a name like "
                + "NOT_FOUND, got '600'");
        assertRefused(() -> args.series("se", Set.of()), "se", "se: expected a status series (INFORMATIONAL, "
                + "SUCCESSFUL, REDIRECTION, CLIENT_ERROR or SERVER_ERROR), got 'WEIRD'");
        assertRefused(() -> args.mapping("map"), "map", "map: expected a mapping like {key: value}, got 'sub'");
        assertRefused(() -> args.decimalIn("f", 0, 0, 1), "f", "f: expected a number from 0.0 to 1.0, got '1.5'");
        assertRefused(() -> args.intIn("n", 0, 1, 5), "n", "n: expected a whole number from 1 to 5, got 'x'");
        assertRefused(() -> args.required("absent"), "absent", "missing argument 'absent'");
    }

    private static void assertRefused(org.assertj.core.api.ThrowableAssert.ThrowingCallable read, String argument,
                                      String message) {
        assertThatThrownBy(read).isInstanceOfSatisfying(ArgumentException.class,
                e -> assertThat(e.argument()).isEqualTo(argument)).hasMessage(message);
    }
}
