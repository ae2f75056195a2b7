package dev.mcpgate.core.review;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.core.internal.Checks;
import org.junit.jupiter.api.Test;

/**
 * Finding (low): {@code Checks.quote} now walks code points and escapes format characters past the
 * BMP too (the TAG characters U+E0000..U+E007F, which "ASCII smuggling" hides text in), but it
 * writes them with {@code String.format("\\u%04x", c)}: five hex digits, {@code \ue0041}, which
 * every reader of a Java/JSON-style escape reads as U+E004 followed by the digit {@code 1}. The
 * quote then says the value holds a private-use character and a "1" that it does not hold.
 *
 * <p>Input: {@code "k" + U+E0041 (TAG LATIN CAPITAL LETTER A)}. Expected: an escape that reads back
 * as that one character (its surrogate pair {@code \udb40\udc41}, or any unambiguous form). What
 * happens: {@code "k\ue0041"}.
 */
class QuoteEscapesACharacterPastTheBmpAsAnotherTest {

  @Test
  void aTagCharacterIsQuotedAsItself() {
    String value = "k" + new String(Character.toChars(0xE0041));

    String quoted = Checks.quote(value);

    assertThat(quoted)
        .as("a \\uXXXX escape has four hex digits: \\ue0041 reads as U+E004 and '1'")
        .doesNotContain("\\ue0041");
    assertThat(quoted).isIn("\"k\\udb40\\udc41\"", "\"k\\u{e0041}\"", "\"k\\U000e0041\"");
  }
}
