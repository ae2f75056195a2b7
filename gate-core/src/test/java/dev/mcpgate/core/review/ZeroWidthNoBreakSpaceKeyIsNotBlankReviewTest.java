package dev.mcpgate.core.review;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.InvalidIdempotencyKeyException;
import org.junit.jupiter.api.Test;

/**
 * Review of c71c15a (ClaimId's blank check): a tenant, tool or key "must not be blank (not only
 * white space, the no-break spaces included)". The check is Character.isWhitespace or isSpaceChar
 * (Unicode Zs, Zl, Zp), so U+FEFF ZERO WIDTH NO-BREAK SPACE and U+200B ZERO WIDTH SPACE (format
 * characters, Cf) pass it: a key made only of them is accepted, stored and shown to an operator as
 * an empty-looking key, and two such keys of different lengths look the same. ClaimId.quoted
 * escapes format characters in messages, so gate-core itself treats them as invisible.
 */
class ZeroWidthNoBreakSpaceKeyIsNotBlankReviewTest {

  @Test
  void aKeyMadeOnlyOfZeroWidthNoBreakSpacesIsBlank() {
    assertThatThrownBy(() -> new ClaimId("acme", "refund_order", "\uFEFF\uFEFF"))
        .isInstanceOf(InvalidIdempotencyKeyException.class)
        .hasMessageContaining("blank");
  }

  @Test
  void aKeyMadeOnlyOfZeroWidthSpacesIsBlank() {
    assertThatThrownBy(() -> new ClaimId("acme", "refund_order", "\u200B"))
        .isInstanceOf(InvalidIdempotencyKeyException.class)
        .hasMessageContaining("blank");
  }
}
