package dev.mcpgate.core.trial;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.mcpgate.core.InvalidIdempotencyKeyException;
import dev.mcpgate.core.ToolCall;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * docs/design.md, "Identity": a key is "not blank". ClaimId.validate uses String.isBlank, which
 * counts only Character.isWhitespace, and that leaves out the no-break spaces (U+00A0, U+2007,
 * U+202F), which are Unicode White_Space. A key of only no-break spaces (a model or a form that
 * pastes one) is accepted and stored: a key no operator can read or type back.
 */
class BlankKeyOfUnicodeSpacesTest {

  @Test
  void aKeyOfOnlyNoBreakSpacesIsRefusedAsBlank() {
    for (String blank : new String[] {"\u00a0", "\u2007\u2007", "\u202f"}) {
      assertThatThrownBy(() -> ToolCall.of("acme", "refund_order", blank, Map.of()))
          .as("U+%04X", (int) blank.charAt(0))
          .isInstanceOf(InvalidIdempotencyKeyException.class)
          .hasMessageContaining("blank");
    }
  }
}
