package io.loomgate.extension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** One reading rule for predicate and filter arguments (the two readers it replaced had drifted apart). */
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
}
